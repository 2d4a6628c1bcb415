#include "draughts/notation.hpp"

#include <cctype>

namespace draughts::detail {

namespace {

// Appends rather than `"'" + std::string(s)`, which trips GCC 12's false -Wrestrict (GCC bug 105329).
std::string quoted(std::string_view s) {
    std::string q(1, '\'');
    q += s;
    q += '\'';
    return q;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// Reads a square number at the start of s; returns false if there is none.
bool read_number(std::string_view& s, int& value) {
    std::size_t n = 0;
    value = 0;
    while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) {
        if (value > 9999) return false;  // far out of range of any board
        value = value * 10 + (s[n] - '0');
        ++n;
    }
    s.remove_prefix(n);
    return n > 0;
}

}  // namespace

void throw_fen_error(std::string_view fen, const std::string& problem) {
    throw NotationError("FEN " + quoted(fen) + ": " + problem +
                        " (expected the form W:W31,32,K45:B1-3,K12: side to move, then each colour's squares)");
}

FenTokens tokenize_fen(std::string_view fen) {
    const std::string_view text = trim(fen);
    if (text.empty()) throw_fen_error(fen, "it is empty");
    FenTokens tokens{};
    const char side = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
    if (side != 'W' && side != 'B') throw_fen_error(fen, "the side to move (W or B) is missing at the start");
    tokens.side_to_move = side == 'W' ? Color::white : Color::black;
    std::string_view rest = text.substr(1);
    if (!rest.empty() && rest.back() == '.') rest.remove_suffix(1);  // PDN allows a closing full stop
    bool seen[2] = {false, false};
    while (!rest.empty()) {
        if (rest.front() != ':') throw_fen_error(fen, "expected ':' before " + quoted(rest));
        rest.remove_prefix(1);
        rest = trim(rest);
        if (rest.empty()) throw_fen_error(fen, "a colour (W or B) is missing after ':'");
        const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(rest.front())));
        if (c != 'W' && c != 'B') throw_fen_error(fen, "expected a colour, W or B, at " + quoted(rest));
        const Color color = c == 'W' ? Color::white : Color::black;
        if (seen[static_cast<int>(color)])
            throw_fen_error(fen, std::string("the ") + (c == 'W' ? "white" : "black") + " pieces are listed twice");
        seen[static_cast<int>(color)] = true;
        rest.remove_prefix(1);
        const std::size_t end = rest.find(':');
        std::string_view list = trim(rest.substr(0, end));
        rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
        while (!list.empty()) {
            std::string_view item = trim(list.substr(0, list.find(',')));
            list = list.find(',') == std::string_view::npos ? std::string_view{} : list.substr(list.find(',') + 1);
            if (item.empty()) throw_fen_error(fen, "an empty entry in a list of squares");
            const std::string whole(item);
            bool king = false;
            if (item.front() == 'K' || item.front() == 'k') {
                king = true;
                item.remove_prefix(1);
            }
            int first = 0, last = 0;
            if (!read_number(item, first)) throw_fen_error(fen, "unknown square " + quoted(whole));
            last = first;
            if (!item.empty() && item.front() == '-') {
                item.remove_prefix(1);
                if (!read_number(item, last)) throw_fen_error(fen, "unknown square range " + quoted(whole));
                if (last < first) throw_fen_error(fen, "the range " + quoted(whole) + " runs backwards");
            }
            if (!item.empty()) throw_fen_error(fen, "unexpected characters in " + quoted(whole));
            for (int s = first; s <= last; ++s) tokens.pieces.push_back({color, king, s});
        }
    }
    return tokens;
}

MoveTokens tokenize_move(std::string_view text) {
    const std::string_view move = trim(text);
    MoveTokens tokens{{}, false};
    std::string_view rest = move;
    char separator = 0;
    while (true) {
        int square = 0;
        if (!read_number(rest, square))
            throw NotationError("move " + quoted(text) + ": expected a square number at " +
                                quoted(rest.empty() ? std::string_view("the end") : rest) +
                                " (moves are written 32-28, 28x19 or 28x19x10)");
        tokens.squares.push_back(square);
        if (rest.empty()) break;
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(rest.front())));
        if (c != '-' && c != 'x' && c != ':')
            throw NotationError("move " + quoted(text) + ": unexpected " + quoted(rest) +
                                " (moves are written 32-28, 28x19 or 28x19x10)");
        const char kind = c == '-' ? '-' : 'x';
        if (separator && kind != separator)
            throw NotationError("move " + quoted(text) + ": mixes '-' and 'x'");
        separator = kind;
        rest.remove_prefix(1);
    }
    if (tokens.squares.size() < 2)
        throw NotationError("move " + quoted(text) + ": needs a start and an end square, as in 32-28 or 28x19");
    tokens.capture = separator == 'x';
    if (!tokens.capture && tokens.squares.size() != 2)
        throw NotationError("move " + quoted(text) + ": a move with '-' has two squares; write captures with 'x'");
    return tokens;
}

}  // namespace draughts::detail
