// The ranks that solve one material together (DESIGN.md §9; docs/design.md,
// "Distributed build"). The solver and the table writer talk to their team
// through this interface only, so they know nothing of MPI (the way Pentago's
// solver is kept apart from its transport): `SoloTeam` is the one-process
// build, `MpiTeam` (builder/mpi/) a group of MPI ranks, and the tests' team
// of threads checks the distributed algorithm without MPI.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace dtb {

// Bytes whose storage is kept from one use to the next, without being
// cleared: the rounds of a level reuse their buffers instead of allocating
// (and the kernel zeroing) them afresh.
class Buffer {
public:
    std::byte* data() noexcept { return data_.get(); }
    const std::byte* data() const noexcept { return data_.get(); }
    std::size_t size() const noexcept { return size_; }
    // Room for n bytes; the contents are lost if it grows.
    void resize(std::size_t n) {
        if (n > capacity_) {
            capacity_ = std::max(n, capacity_ + capacity_ / 2);
            data_.reset(new std::byte[capacity_]);  // default-initialised: not zeroed
        }
        size_ = n;
    }

private:
    std::unique_ptr<std::byte[]> data_;
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

// Elements of type T sent to every member of the team in rounds of
// exchanges, the buffers kept from round to round. Post to to(j), or give
// send() a buffer already in member order; then from(j) is what member j
// sent, until the next exchange.
template <class T>
class Mailbox {
    static_assert(std::is_trivially_copyable_v<T>);

public:
    explicit Mailbox(int members) : out_(members), counts_(members) {}

    std::vector<T>& to(int member) noexcept { return out_[member]; }

    // Sends what was posted to each member (and empties the posts).
    void exchange(Team& team) {
        std::size_t total = 0;
        for (const std::vector<T>& o : out_) total += o.size();
        staging_.resize(total * sizeof(T));
        std::byte* at = staging_.data();
        for (std::size_t j = 0; j < out_.size(); ++j) {
            counts_[j] = out_[j].size() * sizeof(T);
            if (counts_[j]) std::memcpy(at, out_[j].data(), counts_[j]);
            at += counts_[j];
            out_[j].clear();
        }
        team.all_to_all(std::span<const std::byte>(staging_.data(), total * sizeof(T)), counts_, received_);
    }

    // Sends counts[j] elements of `data`, taken in member order, to member j.
    void send(Team& team, std::span<const T> data, std::span<const std::size_t> counts) {
        for (std::size_t j = 0; j < counts.size(); ++j) counts_[j] = counts[j] * sizeof(T);
        team.all_to_all(std::as_bytes(data), counts_, received_);
    }

    // What member j sent in the last exchange. The bytes come from operator
    // new, aligned for any scalar, and every part is whole elements.
    std::span<const T> from(int j) const noexcept {
        const std::byte* first = received_.bytes.data() + received_.offsets[j];
        return {reinterpret_cast<const T*>(first), (received_.offsets[j + 1] - received_.offsets[j]) / sizeof(T)};
    }
    std::size_t received() const noexcept { return received_.offsets.back() / sizeof(T); }

private:
    std::vector<std::vector<T>> out_;
    std::vector<std::size_t> counts_;
    Buffer staging_;
    Team::Received received_;
};

// How a team shares the work (docs/design.md, "Distributed build").
struct TeamOptions {
    // A level with fewer men configurations than this many per member has
    // every pair split over the team; otherwise each member takes whole pairs.
    std::uint64_t configurations_per_member = 8;
    // Pairs of fewer positions are never split (tests lower it to split small pairs).
    std::uint64_t min_split_positions = 1 << 12;
    // Positions whose lookups are exchanged at once, and settled positions
    // of a split queue sent at once: they bound the messages and their memory.
    std::uint64_t lookup_positions = 1 << 20;
    std::uint64_t update_positions = 1 << 16;
    // A level of whole pairs is solved in stages of at most this many of the
    // member's positions, each stage's exchanges beside the next's solving.
    std::uint64_t stage_positions = 1 << 18;
    // Whole pairs of at least this many positions are solved one at a time
    // with all threads (as SolverOptions::big_pair_positions; tests lower it).
    std::uint64_t shared_pair_positions = 1 << 15;
    // A team of k holds a table of P' positions whole (every member a copy)
    // only if k P' <= held_ratio x P, P the positions of the material it
    // solves: each member receives the whole table, against 1/k of it when
    // it is shared out, so in a big team only small tables are worth a copy
    // (docs/scaling.md). 0: every table shared out.
    double held_ratio = 4;
};

// The first of member j's share when `total` things are shared out among
// `members`: total * j / members, rounded down, without overflow.
inline std::uint64_t share_bound(std::uint64_t total, int j, int members) noexcept {
    __extension__ typedef unsigned __int128 wide;  // __extension__: silenced for -Wpedantic
    return static_cast<std::uint64_t>(static_cast<wide>(total) * static_cast<unsigned>(j) / static_cast<unsigned>(members));
}

// Positions [0, total) split into `members` ranges whose boundaries are
// multiples of 2^align_shift: member j holds [bounds[j], bounds[j + 1]).
// Every member computes the same split.
struct Ranges {
    std::vector<std::uint64_t> bounds;

    static Ranges split(std::uint64_t total, int members, int align_shift) {
        Ranges r;
        const std::uint64_t units = (total + (std::uint64_t{1} << align_shift) - 1) >> align_shift;
        for (int j = 0; j <= members; ++j) {
            r.bounds.push_back(std::min(total, share_bound(units, j, members) << align_shift));
        }
        return r;
    }
    // The member whose range holds position g < total.
    int owner(std::uint64_t g) const noexcept {
        return static_cast<int>(std::upper_bound(bounds.begin() + 1, bounds.end() - 1, g) - bounds.begin()) - 1;
    }
    std::uint64_t first(int member) const noexcept { return bounds[member]; }
    std::uint64_t count(int member) const noexcept { return bounds[member + 1] - bounds[member]; }
};

}  // namespace dtb
