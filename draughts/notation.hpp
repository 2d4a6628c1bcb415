// Notation (docs/design.md, "Notation"): PDN FEN positions (`W:W31,32,K45:B1,2,K3`) and
// move text (`32-28`, `28x19`, `28x19x10` when the path must be told).
// Every malformed input throws NotationError with a message naming the problem.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "draughts/movegen.hpp"

namespace draughts {

class NotationError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

namespace detail {

// A FEN read without knowing the board: squares as written (PDN numbers).
struct FenTokens {
    Color side_to_move;
    struct Piece {
        Color color;
        bool king;
        int square;  // PDN number, 1-based, not yet checked against a board
    };
    std::vector<Piece> pieces;
};

FenTokens tokenize_fen(std::string_view fen);

// Move text as written: the squares and whether they were joined by 'x'.
struct MoveTokens {
    std::vector<int> squares;  // PDN numbers
    bool capture;
};

MoveTokens tokenize_move(std::string_view text);

[[noreturn]] void throw_fen_error(std::string_view fen, const std::string& problem);

// Collects every capture sequence with its landing squares.
template <int N>
struct PathSink {
    static constexpr bool wants_path = true;
    struct Entry {
        Move<N> move;
        std::vector<std::uint8_t> path;  // bit indexes of the landing squares, the last is move.to
    };
    std::vector<Entry> entries;

    void add(const Move<N>& m, const std::uint8_t* path, int length) {
        entries.push_back({m, std::vector<std::uint8_t>(path, path + length)});
    }
};

// Every capture sequence of the side to move (before the maximum rule and
// without merging duplicates), with its path.
template <class V>
std::vector<typename PathSink<V::board_size>::Entry> capture_paths(const Position<V::board_size>& p) {
    PathSink<V::board_size> sink;
    if (p.side_to_move == Color::white)
        Generator<V, Color::white>::search_captures(p, sink);
    else
        Generator<V, Color::black>::search_captures(p, sink);
    return std::move(sink.entries);
}

}  // namespace detail

template <int N>
constexpr int square_number(int bit_index) noexcept {
    return Geometry<N>::square_of_bit[bit_index] + 1;
}

template <int N>
Position<N> parse_fen(std::string_view fen) {
    using G = Geometry<N>;
    using B = typename G::Bitboard;
    const detail::FenTokens tokens = detail::tokenize_fen(fen);
    Position<N> p;
    p.side_to_move = tokens.side_to_move;
    for (const auto& piece : tokens.pieces) {
        if (piece.square < 1 || piece.square > G::squares)
            detail::throw_fen_error(fen, "square " + std::to_string(piece.square) + " is out of range: a " +
                                             std::to_string(N) + "x" + std::to_string(N) + " board has squares 1-" +
                                             std::to_string(G::squares));
        const B b = bit<B>(G::bit_of_square(piece.square - 1));
        if (p.occupied() & b)
            detail::throw_fen_error(fen, "square " + std::to_string(piece.square) + " is given twice");
        const bool white = piece.color == Color::white;
        if (!piece.king && (b & G::promotion_row(piece.color)))
            detail::throw_fen_error(fen, std::string(white ? "white" : "black") + " man on square " +
                                             std::to_string(piece.square) +
                                             " stands on its own promotion row: write it as a king (K" +
                                             std::to_string(piece.square) + ")");
        (white ? p.white : p.black) |= b;
        if (piece.king) p.kings |= b;
    }
    return p;
}

template <int N>
std::string to_fen(const Position<N>& p) {
    std::string fen(1, p.side_to_move == Color::white ? 'W' : 'B');
    for (Color c : {Color::white, Color::black}) {
        fen += c == Color::white ? ":W" : ":B";
        bool first = true;
        for (int s = 0; s < Geometry<N>::squares; ++s) {
            const auto b = bit<typename Geometry<N>::Bitboard>(Geometry<N>::bit_of_square(s));
            if (!(p.pieces(c) & b)) continue;
            if (!first) fen += ',';
            first = false;
            if (p.kings & b) fen += 'K';
            fen += std::to_string(s + 1);
        }
    }
    return fen;
}

// The text of a legal move of p: `from-to`, `fromxto`, or the full path
// `fromxAxBx...xto` when another legal capture has the same start and end.
template <class V>
std::string move_to_text(const Position<V::board_size>& p, const Move<V::board_size>& m) {
    constexpr int N = V::board_size;
    const std::string from = std::to_string(square_number<N>(m.from));
    if (!m.is_capture()) return from + "-" + std::to_string(square_number<N>(m.to));
    MoveList<N> legal;
    generate_moves<V>(p, legal);
    const auto same_ends = std::count_if(legal.begin(), legal.end(),
                                         [&](const Move<N>& o) { return o.from == m.from && o.to == m.to; });
    if (same_ends <= 1) return from + "x" + std::to_string(square_number<N>(m.to));
    for (const auto& entry : detail::capture_paths<V>(p)) {
        if (!(entry.move == m)) continue;
        std::string text = from;
        for (auto s : entry.path) {
            text += 'x';  // appended apart: `"x" + std::string` trips GCC 12's false -Wrestrict
            text += std::to_string(square_number<N>(s));
        }
        return text;
    }
    throw std::logic_error("move_to_text: the move is not a legal capture of the position");
}

// The legal move of p that `text` names. Captures may be written with their
// start and end only when that is unambiguous, or with any landing squares
// of the path in between.
template <class V>
Move<V::board_size> parse_move(const Position<V::board_size>& p, std::string_view text) {
    constexpr int N = V::board_size;
    using G = Geometry<N>;
    const detail::MoveTokens tokens = detail::tokenize_move(text);
    for (int s : tokens.squares)
        if (s < 1 || s > G::squares)
            throw NotationError("move '" + std::string(text) + "': square " + std::to_string(s) +
                                " is out of range 1-" + std::to_string(G::squares));
    const int from = G::bit_of_square(tokens.squares.front() - 1);
    const int to = G::bit_of_square(tokens.squares.back() - 1);
    MoveList<N> legal;
    generate_moves<V>(p, legal);
    std::vector<Move<N>> matches;
    for (const auto& m : legal)
        if (m.from == from && m.to == to && m.is_capture() == tokens.capture) matches.push_back(m);
    if (tokens.capture && matches.size() > 1 && tokens.squares.size() > 2) {
        // The landing squares written: a full path names one move (consecutive
        // landing squares fix the piece captured between them); fewer squares
        // keep the moves with a path through them, in order.
        std::vector<int> written;
        for (std::size_t i = 1; i < tokens.squares.size(); ++i)
            written.push_back(G::bit_of_square(tokens.squares[i] - 1));
        std::vector<Move<N>> exact, through;
        for (const auto& entry : detail::capture_paths<V>(p)) {
            if (std::find(matches.begin(), matches.end(), entry.move) == matches.end()) continue;
            const bool same = std::equal(entry.path.begin(), entry.path.end(), written.begin(), written.end());
            auto at = entry.path.begin();
            bool follows = true;
            for (std::size_t i = 0; i + 1 < written.size() && follows; ++i) {
                at = std::find(at, entry.path.end(), written[i]);
                follows = at != entry.path.end();
                if (follows) ++at;
            }
            auto& into = same ? exact : through;
            if ((same || follows) && std::find(into.begin(), into.end(), entry.move) == into.end())
                into.push_back(entry.move);
        }
        matches = exact.empty() ? through : exact;
    }
    if (matches.empty()) {
        const bool must_capture = !legal.empty() && legal[0].is_capture();
        std::string why = "move '" + std::string(text) + "' is not legal in " + to_fen(p);
        if (must_capture && !tokens.capture) why += " (a capture is compulsory)";
        throw NotationError(why);
    }
    if (matches.size() > 1)
        throw NotationError("move '" + std::string(text) + "' is ambiguous in " + to_fen(p) +
                            ": give the landing squares of the path, for example " + move_to_text<V>(p, matches[0]));
    return matches.front();
}

}  // namespace draughts
