// The ranks that solve one material together (docs/design.md,
// "Distributed build"). The solver and the table writer talk to their team
// through this interface only, so they know nothing of MPI (the way Pentago's
// solver is kept apart from its transport): `SoloTeam` is the one-process
// build, `MpiTeam` (builder/mpi/) a group of MPI ranks, and the tests' team
// of threads checks the distributed algorithm without MPI.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

#include "builder/system/huge_pages.hpp"

namespace dtb {

// Bytes whose storage is kept from one use to the next, without being
// cleared: the rounds of a level reuse their buffers instead of allocating
// (and the kernel zeroing) them afresh. 2 MiB or more are on huge pages
// (huge_pages.hpp).
class Buffer {
public:
    std::byte* data() noexcept { return data_.get(); }
    const std::byte* data() const noexcept { return data_.get(); }
    std::size_t size() const noexcept { return size_; }
    // Room for n bytes; the contents are lost if it grows.
    void resize(std::size_t n) {
        if (n > capacity_) {
            const std::size_t capacity = std::max(n, capacity_ + capacity_ / 2);
            data_ = {HugePaged<std::byte>().allocate(capacity), Release{capacity}};  // not zeroed here
            capacity_ = capacity;
        }
        size_ = n;
    }

private:
    struct Release {
        std::size_t bytes;  // no default member initializer, so that data_ can be default-constructed
        void operator()(std::byte* p) const noexcept { HugePaged<std::byte>().deallocate(p, bytes); }
    };
    std::unique_ptr<std::byte[], Release> data_;
    std::size_t size_ = 0, capacity_ = 0;
};

class Team {
public:
    virtual ~Team() = default;

    // This member, 0..size() - 1. Member 0 writes the team's tables.
    virtual int rank() const noexcept = 0;
    virtual int size() const noexcept = 0;

    // What a member received from each member in one exchange: the bytes,
    // in member order, and where each member's part starts (size() + 1 offsets).
    struct Received {
        Buffer bytes;
        std::vector<std::size_t> offsets;
    };

    // All to all, collective: `counts[j]` bytes of `data`, taken in member
    // order, go to member j (its own part included); what the members sent
    // here goes to `into`.
    virtual void all_to_all(std::span<const std::byte> data, std::span<const std::size_t> counts, Received& into) = 0;

    // All gather in place, collective: `data` holds every member's part, at
    // offsets[j] with counts[j] bytes (the same on every member); each member
    // has filled its own, and gets everyone's.
    virtual void all_gather(std::byte* data, std::span<const std::size_t> offsets,
                            std::span<const std::size_t> counts) = 0;

    // Collective reductions of one number per member.
    virtual std::uint64_t all_max(std::uint64_t value) = 0;
    virtual std::uint64_t all_sum(std::uint64_t value) = 0;
    std::uint64_t all_min(std::uint64_t value) { return ~all_max(~value); }

    // Point to point, delivered in order between two members.
    virtual void send(int to, std::span<const std::byte> data) = 0;
    virtual std::vector<std::byte> receive(int from) = 0;

    // The member's exchanges may run on another thread while the one that
    // made the team works on (a level's stages, builder/solver/team_level.hpp):
    // a team counts as time lost waiting for the others only its waits on
    // that thread, and the `seconds` it waited there for the other thread.
    virtual void waited(double /*seconds*/) {}
};

// The team of a build that runs as one process: every exchange is with itself.
class SoloTeam final : public Team {
public:
    int rank() const noexcept override { return 0; }
    int size() const noexcept override { return 1; }
    void all_to_all(std::span<const std::byte> data, std::span<const std::size_t>, Received& into) override {
        into.bytes.resize(data.size());
        std::copy(data.begin(), data.end(), into.bytes.data());
        into.offsets = {0, data.size()};
    }
    void all_gather(std::byte*, std::span<const std::size_t>, std::span<const std::size_t>) override {}
    std::uint64_t all_max(std::uint64_t value) override { return value; }
    std::uint64_t all_sum(std::uint64_t value) override { return value; }
    void send(int, std::span<const std::byte>) override {
        throw std::logic_error("a team of one has no one to send to");
    }
    std::vector<std::byte> receive(int) override { throw std::logic_error("a team of one has no one to receive from"); }
};

}  // namespace dtb
