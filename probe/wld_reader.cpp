#include "probe/wld_reader.hpp"

#include <string>

#include "draughts/variant.hpp"
#include "probe/errors.hpp"
#include "probe/index.hpp"
#include "probe/left_out.hpp"

namespace dtb {

PairedOrder paired_order_of(const TableHeader& h) {
    return draughts::with_variant_or_test_board(h.variant, [&]<class V>() {
        constexpr int N = V::board_size;
        const Index<N> own(h.material), mirror(h.material.mirrored());
        PairedOrder order;
        order.position = [own, mirror](std::uint64_t g) { return paired_position(own, mirror, g); };
        order.positions = [own, mirror](std::uint64_t g, std::span<std::uint64_t> w) {
            paired_positions(own, mirror, g, w);
        };
        order.turned_men = [own, mirror](std::uint64_t men) {
            const draughts::Position<N> q = mirror.unrank_men(men);
            return own.rank_men_turned(q.white, q.black);
        };
        order.king_placements = own.king_placements();
        return order;
    });
}

std::function<bool(std::uint64_t g)> left_out_of(const TableHeader& h) {
    return draughts::with_variant_or_test_board(h.variant, [&]<class V>() -> std::function<bool(std::uint64_t)> {
        constexpr int N = V::board_size;
        const Index<N> own(h.material), mirror(h.material.mirrored());
        return [own, mirror](std::uint64_t g) { return left_out<V>(table_position(own, mirror, g)); };
    });
}

WldReader::WldReader(const TableFile& wld) : wld_(wld), slots_(slots) {
    if (wld.header().compact())
        throw TableError(TableErrorKind::unsupported, wld.path(),
                         "a compact .wld (format version 4) leaves out positions that only a probe's search "
                         "answers, and dtb reads a table back from a full one: turn the set's compact tables back "
                         "with dtb convert --full-wld, then build");
    if (wld.header().paired()) file_position_ = paired_order_of(wld.header()).position;
}

Wdl WldReader::wdl(std::uint64_t g) {
    const TableHeader& h = wld_.header();
    const std::uint64_t w = file_position_ ? file_position_(g) : g;
    const TableHeader::Place at = h.place_of(w);
    Slot& slot = slots_[at.block % slots];
    if (slot.block != at.block) {
        slot.block = ~std::uint64_t{0};  // until the block is read whole
        slot.bytes.resize(h.block_bytes(at.block));
        wld_.read_block(at.block, slot.bytes);
        slot.block = at.block;
    }
    const std::uint32_t code = value_at(slot.bytes, 2, at.k);
    if (code == wld_unwritten)
        throw TableError(TableErrorKind::corrupted, wld_.path(),
                         "position " + std::to_string(w) + " holds the value never written");
    return wdl_of_wld_code(code);
}

}  // namespace dtb
