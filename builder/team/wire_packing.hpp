// A member's part of a team's exchange packed for the network (docs/design.md,
// "Distributed build", point 6): its elements as byte planes (byte 0 of
// every element, then byte 1, ...) compressed by zstd at level 1. What
// a team sends is mostly 16-bit codes (results sent home, blocks and
// answers of the tables it reads), which run long as a table's do: packed,
// they take a fraction of their two bytes, where a network of 10 Gb/s
// carries about 4 bytes a position of a rank of 64 cores.
//
// A packed part is a header, 8 bytes little-endian, of its unpacked size
// times two, plus 1 if what follows is zstd (else the bytes as they are:
// a small part, or one that packing would not shrink), then that. An empty
// part is empty.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "builder/system/huge_pages.hpp"

namespace dtb {

class WirePacker {
public:
    WirePacker();
    ~WirePacker();
    WirePacker(const WirePacker&) = delete;
    WirePacker& operator=(const WirePacker&) = delete;

    // Appends `raw`, elements of `element_size` bytes, packed to `out`.
    void pack(std::span<const std::byte> raw, std::size_t element_size, HugePagedVector<std::byte>& out);

    // The unpacked size of packed part `part` (all of it), which unpack() checks.
    static std::size_t unpacked_size(std::span<const std::byte> part);
    // Unpacks `part` into `into` (unpacked_size(part) bytes). Throws
    // std::runtime_error naming `from` if it is not a packed part.
    void unpack(std::span<const std::byte> part, std::size_t element_size, std::byte* into, const std::string& from);

private:
    struct Contexts;
    std::unique_ptr<Contexts> contexts_;  // zstd's, kept from part to part
    HugePagedVector<std::byte> planes_;  // a part's byte planes, packed or unpacked
};

}  // namespace dtb
