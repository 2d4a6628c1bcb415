#include "builder/mpi/table_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "builder/mpi/mpi_team.hpp"

namespace dtb::mpi {

namespace {

constexpr int request_tag = 1;
// Each request's answer comes on a tag of its own, above the request's.
constexpr int first_answer_tag = 16;
constexpr int answer_tags = 30000;
// MPI counts in ints: a table goes in pieces of at most 1 GiB.
constexpr std::size_t piece = std::size_t{1} << 30;
// A table is asked for in parts of 2^26 positions (64 frames, 128 MiB of codes).
constexpr std::uint64_t default_part_positions = std::uint64_t{1} << 26;

// The pieces of `bytes` bytes at `data`: calls f(pointer, count) for each.
template <class Byte, class F>
void for_each_piece(Byte* data, std::size_t bytes, F&& f) {
    for (std::size_t done = 0; done < bytes; done += piece)
        f(data + done, static_cast<int>(std::min(piece, bytes - done)));
}

}  // namespace

TableExchange::TableExchange(MPI_Comm comm, KeptTables& kept, std::uint64_t kept_parts_budget, Written written)
    : comm_(comm),
      kept_(kept),
      part_positions_(default_part_positions),
      kept_parts_(kept_parts_budget),
      written_(std::move(written)) {
    if (const char* part = std::getenv("DTB_TEST_PART_POSITIONS"); part && *part) {
        part_positions_ = std::strtoull(part, nullptr, 10);
        if (part_positions_ == 0 || part_positions_ % 64 != 0)
            throw std::invalid_argument("DTB_TEST_PART_POSITIONS must be a positive multiple of 64");
    }
}

bool TableExchange::serve() {
    bool acted = false;
    while (const auto message = try_receive(comm_, MPI_ANY_SOURCE, request_tag)) {
        acted = true;
        const int asker = message->first;
        const nlohmann::json request = nlohmann::json::parse(message->second);
        const int tag = request.at("tag").get<int>();
        const std::uint64_t first = request.at("first").get<std::uint64_t>();
        const std::uint64_t count = request.at("count").get<std::uint64_t>();
        const PackedParts::Key key{Material::parse(request.at("material").get<std::string>()), first, count};
        if (auto kept = kept_parts_.find(key)) {
            ++parts_sent_again_;
            send(asker, tag, std::move(kept));
            continue;
        }
        // Being packed for another asker (the ranks a finished table lets
        // start ask for it at once): this one waits for the same packing.
        const auto same =
            std::find_if(packing_.begin(), packing_.end(), [&](const Packing& p) { return p.key == key; });
        if (same != packing_.end()) {
            same->askers.emplace_back(asker, tag);
            continue;
        }
        std::shared_ptr<const SolvedValues> values = kept_.find(key.material);
        if (values && (count == 0 || !values->holds(first) || !values->holds(first + count - 1))) values = nullptr;
        if (!values) {
            refuse(asker, tag);
            continue;
        }
        auto packed = std::async(std::launch::async, [this, values = std::move(values), first, count] {
            if (values->whole() && written_) {
                try {
                    if (std::optional<PackedRange> frames = written_(values->material, first, count)) {
                        ++parts_read_;
                        return std::move(*frames);
                    }
                } catch (const std::exception&) {
                    // A packed form damaged or gone: the part is packed from the values instead.
                }
            }
            PackedRange frames = pack_range(*values, first, count);
            ++parts_packed_;
            return frames;
        });
        packing_.push_back({{{asker, tag}}, key, std::move(packed)});
    }
    for (auto it = packing_.begin(); it != packing_.end();) {
        if (it->packed.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
            ++it;
            continue;
        }
        acted = true;
        answer(*it);
        it = packing_.erase(it);
    }
    for (auto it = sending_.begin(); it != sending_.end();) {
        int done = 0;
        check(MPI_Testall(static_cast<int>(it->requests.size()), it->requests.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
        it = done ? sending_.erase(it) : std::next(it);
    }
    return acted;
}

// The answer to the askers of a range now packed, which is kept for the
// next asker; or that it is not had, if the packing failed (out of memory).
void TableExchange::answer(Packing& p) {
    std::shared_ptr<const PackedRange> packed;
    try {
        packed = std::make_shared<const PackedRange>(p.packed.get());
    } catch (const std::exception&) {
        for (const auto& [asker, tag] : p.askers) refuse(asker, tag);  // they read the table back from its file
        return;
    }
    parts_sent_again_ += p.askers.size() - 1;
    kept_parts_.keep(p.key, packed);
    for (const auto& [asker, tag] : p.askers) send(asker, tag, packed);
}

void TableExchange::refuse(int asker, int tag) {
    const std::string text = nlohmann::json{{"have", false}}.dump();
    check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, asker, tag, comm_), "MPI_Send");
}

void TableExchange::send(int asker, int tag, std::shared_ptr<const PackedRange> packed) {
    const std::string text = nlohmann::json{{"have", true}, {"frames", packed->frame_bytes}}.dump();
    check(MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, asker, tag, comm_), "MPI_Send");
    Sending& sent = sending_.emplace_back(Sending{std::move(packed), {}});
    for_each_piece(sent.packed->bytes.data(), sent.packed->bytes.size(), [&](const std::byte* piece_data, int n) {
        check(MPI_Isend(piece_data, n, MPI_BYTE, asker, tag, comm_, &sent.requests.emplace_back()), "MPI_Isend");
    });
    sent_ += sent.packed->bytes.size();
}

void TableExchange::finish() {
    while (!packing_.empty() || !sending_.empty()) {
        serve();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

bool TableExchange::fetch(int holder, std::uint64_t first, std::uint64_t count, SolvedValues& into) {
    // Asked in parts, two ahead, so that the holder packs the next parts
    // while this rank receives and unpacks the one before.
    const RangeParts part{first, count, part_positions_};
    const std::uint64_t parts = part.size();
    std::deque<int> tags;  // of the parts asked and not yet answered
    std::uint64_t asked = 0;
    const auto ask = [&] {
        const int tag = first_answer_tag + next_tag_++ % answer_tags;
        const auto [at, n] = part[asked];
        const std::string request =
            nlohmann::json{{"material", into.material.name()}, {"first", at}, {"count", n}, {"tag", tag}}.dump();
        check(MPI_Send(request.data(), static_cast<int>(request.size()), MPI_CHAR, holder, request_tag, comm_),
              "MPI_Send");
        tags.push_back(tag);
        ++asked;
    };
    while (asked < std::min<std::uint64_t>(parts, 2)) ask();
    bool have = true;
    for (std::uint64_t i = 0; !tags.empty(); ++i) {
        const int tag = tags.front();
        tags.pop_front();
        const nlohmann::json header = nlohmann::json::parse(receive_whole(comm_, holder, tag).second);
        if (!header.at("have").get<bool>()) {
            have = false;  // the parts already asked are still answered, and taken
            continue;
        }
        const std::vector<std::uint64_t> frame_bytes = header.at("frames").get<std::vector<std::uint64_t>>();
        std::uint64_t total = 0;
        for (const std::uint64_t b : frame_bytes) total += b;
        // Not zeroed: every byte is received before it is read.
        const std::unique_ptr<std::byte[]> bytes = std::make_unique_for_overwrite<std::byte[]>(total);
        std::vector<MPI_Request> requests;
        for_each_piece(bytes.get(), total, [&](std::byte* p, int n) {
            check(MPI_Irecv(p, n, MPI_BYTE, holder, tag, comm_, &requests.emplace_back()), "MPI_Irecv");
        });
        for (MPI_Request& r : requests) wait_politely(r);
        received_ += total;
        if (!have) continue;
        if (asked < parts) ask();
        const auto [at, n] = part[i];
        unpack_range(std::span<const std::byte>(bytes.get(), total), frame_bytes, into, at, n,
                     "rank " + std::to_string(holder));
    }
    return have;
}

}  // namespace dtb::mpi
