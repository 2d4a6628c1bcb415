// The C++ interface (dtb.hpp) as an engine would use it: the same work as
// probe_example.c, with exceptions instead of statuses. Needs C++20.
//
//   probe_example_cpp VARIANT DIR FEN
//
// Built against the installed library by the test suite (tests/install).
#include <dtb.hpp>

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::cerr << "usage: " << argv[0] << " VARIANT DIR FEN\n";
        return 2;
    }
    try {
        std::cout << "libdtb-probe " << dtb::version() << '\n';
        const dtb::Tablebase tb(argv[1], argv[2], 16u << 20);
        const dtb_position position = tb.parse_fen(argv[3]);
        const dtb::Value value = tb.value(position);
        if (tb.wdl(position) != value.wdl) {
            std::cerr << "the .wld and .dtw tables disagree\n";
            return 1;
        }
        if (const auto best = tb.best_move(position)) std::cout << "best move: " << best->move.text << '\n';
        std::cout << dtb::to_string(value) << '\n';
    } catch (const std::exception& e) {  // dtb::TableError names the file
        std::cerr << e.what() << '\n';
        return 1;
    }
    return 0;
}
