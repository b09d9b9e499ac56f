// agrid_test_one_definition: its check is its link (unit.cpp says what it compares).
#include <cstdio>

int main() {
  std::puts("the public classes are defined alike in C++11, 14, 17 and 20 (-flto -Werror=odr)");
  return 0;
}
