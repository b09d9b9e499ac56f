// check_odr_link.cmake's translation unit: fixtures/field_in_cxx20_only.h, compiled as C++17 and
// as C++20 (AGRID_STANDARD), whose link must fail.
#include "../fixtures/field_in_cxx20_only.h"

#define AGRID_JOIN2(a, b) a##b
#define AGRID_JOIN(a, b) AGRID_JOIN2(a, b)

namespace AGRID_JOIN(cxx, AGRID_STANDARD) {
Limits* limits = nullptr;
}  // namespace AGRID_JOIN(cxx, AGRID_STANDARD)

#if AGRID_STANDARD == 20
int main() { return 0; }
#endif
