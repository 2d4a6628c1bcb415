// A .wld read by table position g (docs/format.md, "Positions"), whatever
// the order of its file (TableHeader::paired()), for readers that walk a
// table in its own order and are not compiled for one board: the builder's
// read back of a .dtw and the .rul writer, which take the .wld's draws. A
// compact .wld (version 4) is refused: the positions it leaves out are
// found by a search into other tables, which only a Prober makes.
// Blocks are kept decompressed in a small cache of 64 slots, one for each
// block number modulo 64: the second half of a paired .wld is read in
// another order than it is stored, and a block of the table's positions
// reads a few dozen of its blocks. Not thread safe: one a thread.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "probe/table_file.hpp"
#include "probe/value.hpp"

namespace dtb {

// The placement order of a .wld for the material and board of `h` (any
// kind's header), for code not compiled for one board: paired_position(),
// paired_positions() of a run of positions, and the men configuration of M
// whose placements are those of men configuration `men` of M' turned round
// (their king placements, as many in both, in another order).
struct PairedOrder {
    std::function<std::uint64_t(std::uint64_t g)> position;
    std::function<void(std::uint64_t g, std::span<std::uint64_t> w)> positions;
    std::function<std::uint64_t(std::uint64_t men)> turned_men;
    std::uint64_t king_placements = 1;
};
PairedOrder paired_order_of(const TableHeader& h);

// Whether table position g of the material and board of `h` is one a
// compact .wld leaves out (probe/left_out.hpp), for the writer, which is
// not compiled for one board.
std::function<bool(std::uint64_t g)> left_out_of(const TableHeader& h);

class WldReader {
public:
    // Throws TableError (unsupported) for a compact .wld.
    explicit WldReader(const TableFile& wld);

    // The result stored for table position g. Throws TableError (corrupted)
    // where the file holds the value never written, or a block is damaged.
    Wdl wdl(std::uint64_t g);

private:
    static constexpr std::size_t slots = 64;
    struct Slot {
        std::uint64_t block = ~std::uint64_t{0};
        std::vector<std::byte> bytes;
    };
    const TableFile& wld_;
    std::function<std::uint64_t(std::uint64_t)> file_position_;  // empty where it is g
    std::vector<Slot> slots_;
};

}  // namespace dtb
