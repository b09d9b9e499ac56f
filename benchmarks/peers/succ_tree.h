#pragma once
// SuccTree: the succinct bit structure of the parallel bi-dimensional sweep and prune
// (parallel_bisap.cpp), after Capannini & Larsson (EGPGV 2016). One bit per position of the
// candidate axis's sorted order, plus one summary bit per 64-bit word that is not zero: a set
// of boxes in n + n/64 bits whose members inside a window of positions are listed without
// reading the empty words, and pruned while they are listed.

#include <bit>
#include <cstdint>
#include <vector>

namespace agrid::peers {

class SuccTree {
 public:
  /// Makes the tree hold `size` positions, all empty (memory kept from earlier sizes).
  void reset(std::uint32_t size) {
    words_.assign(word_count(size), 0);
    summary_.assign(word_count(static_cast<std::uint32_t>(words_.size())), 0);
  }

  /// Adds a position.
  void insert(std::uint32_t pos) {
    const std::uint32_t word = pos / kBits;
    words_[word] |= bit(pos);
    summary_[word / kBits] |= bit(word);
  }

  /// Calls keep(pos) for each position in [begin, end), ascending; a position for which keep
  /// returns false is removed (a box that can never meet a later probe).
  template <class Keep>
  void visit(std::uint32_t begin, std::uint32_t end, Keep&& keep) {
    if (begin >= end) return;
    const std::uint32_t first = begin / kBits;
    const std::uint32_t last = (end - 1) / kBits;
    for (std::uint32_t s = first / kBits; s <= last / kBits; ++s) {
      std::uint64_t live = summary_[s] & span_mask(first, last, s);
      while (live != 0) {
        const std::uint32_t word = s * kBits + static_cast<std::uint32_t>(std::countr_zero(live));
        live &= live - 1;
        visit_word(word, begin, end, keep);
      }
    }
  }

 private:
  /// Bits per word, at both levels.
  static constexpr std::uint32_t kBits = 64;

  static std::size_t word_count(std::uint32_t bits) { return (std::size_t{bits} + kBits - 1) / kBits; }
  static std::uint64_t bit(std::uint32_t pos) { return std::uint64_t{1} << (pos % kBits); }

  /// The bits of summary word `s` that stand for the words first..last.
  static std::uint64_t span_mask(std::uint32_t first, std::uint32_t last, std::uint32_t s) {
    std::uint64_t mask = ~std::uint64_t{0};
    if (first / kBits == s) mask &= ~std::uint64_t{0} << (first % kBits);
    if (last / kBits == s) mask &= ~std::uint64_t{0} >> (kBits - 1 - last % kBits);
    return mask;
  }

  /// The bits of `word` that stand for positions in [begin, end).
  static std::uint64_t window_mask(std::uint32_t word, std::uint32_t begin, std::uint32_t end) {
    std::uint64_t mask = ~std::uint64_t{0};
    if (begin / kBits == word) mask &= ~std::uint64_t{0} << (begin % kBits);
    if ((end - 1) / kBits == word) mask &= ~std::uint64_t{0} >> (kBits - 1 - (end - 1) % kBits);
    return mask;
  }

  template <class Keep>
  void visit_word(std::uint32_t word, std::uint32_t begin, std::uint32_t end, Keep& keep) {
    std::uint64_t members = words_[word] & window_mask(word, begin, end);
    std::uint64_t dropped = 0;
    while (members != 0) {
      const std::uint32_t pos = word * kBits + static_cast<std::uint32_t>(std::countr_zero(members));
      if (!keep(pos)) dropped |= members & (~members + 1);
      members &= members - 1;
    }
    if (dropped == 0) return;
    words_[word] &= ~dropped;
    if (words_[word] == 0) summary_[word / kBits] &= ~bit(word);
  }

  std::vector<std::uint64_t> words_;    ///< One bit per position.
  std::vector<std::uint64_t> summary_;  ///< One bit per word of words_: set iff it is not zero.
};

}  // namespace agrid::peers
