// Random positions for the probe benchmarks.
#pragma once

#include <random>
#include <vector>

#include "draughts/movegen.hpp"
#include "probe/index.hpp"

namespace bench {

// `count` random positions of `m` without a capture (the probe reads them
// from the table directly), either side to move, the same on every run: a
// placement of m with White or with Black to move, so that both halves of
// the table are probed (a placement turned round, with Black to move in
// m's mirror, is a position of the first half again).
template <class V>
std::vector<draughts::Position<V::board_size>> quiet_positions(const dtb::Material& m, std::size_t count) {
    const dtb::Index<V::board_size> index(m);
    std::mt19937_64 rng(7);
    std::vector<draughts::Position<V::board_size>> out;
    while (out.size() < count) {
        auto p = index.unrank(rng() % index.size());
        if (rng() % 2) p.side_to_move = draughts::Color::black;
        if (!draughts::has_capture<V>(p)) out.push_back(p);
    }
    return out;
}

}  // namespace bench
