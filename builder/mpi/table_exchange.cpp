#include "builder/mpi/table_exchange.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

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

// The pieces of `bytes` bytes at `data`: calls f(pointer, count) for each.
template <class F>
void for_each_piece(std::byte* data, std::size_t bytes, F&& f) {
    for (std::size_t done = 0; done < bytes; done += piece) f(data + done, static_cast<int>(std::min(piece, bytes - done)));
}

}  // namespace

bool TableExchange::serve() {
    bool acted = false;
    while (const auto message = try_receive(comm_, MPI_ANY_SOURCE, request_tag)) {
        acted = true;
        const int asker = message->first;
        const nlohmann::json request = nlohmann::json::parse(message->second);
        const int tag = request.at("tag").get<int>();
        const std::uint64_t first = request.at("first").get<std::uint64_t>();
        const std::uint64_t count = request.at("count").get<std::uint64_t>();
        std::shared_ptr<const SolvedValues> values = cache_.find(Material::parse(request.at("material").get<std::string>()));
        if (values && (count == 0 || !values->holds(first) || !values->holds(first + count - 1))) values = nullptr;
        const std::string answer = nlohmann::json{{"have", values != nullptr}}.dump();
        check(MPI_Send(answer.data(), static_cast<int>(answer.size()), MPI_CHAR, asker, tag, comm_), "MPI_Send");
        if (!values) continue;
        Sending& s = sending_.emplace_back();
        s.values = std::move(values);
        auto send = [&](const void* data, std::size_t bytes) {
            for_each_piece(const_cast<std::byte*>(static_cast<const std::byte*>(data)), bytes, [&](std::byte* p, int n) {
                check(MPI_Isend(p, n, MPI_BYTE, asker, tag, comm_, &s.requests.emplace_back()), "MPI_Isend");
            });
            sent_ += bytes;
        };
        const std::uint64_t at = first - s.values->first;  // a multiple of 64
        send(s.values->codes.data() + at, 2 * count);
        send(s.values->capture.data() + at / 64, 8 * ((count + 63) / 64));
    }
    for (auto it = sending_.begin(); it != sending_.end();) {
        int done = 0;
        check(MPI_Testall(static_cast<int>(it->requests.size()), it->requests.data(), &done, MPI_STATUSES_IGNORE),
              "MPI_Testall");
        it = done ? sending_.erase(it) : std::next(it);
    }
    return acted;
}

void TableExchange::finish() {
    while (!sending_.empty()) {
        serve();
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
}

bool TableExchange::fetch(int holder, std::uint64_t first, std::uint64_t count, SolvedValues& into) {
    const int tag = first_answer_tag + next_tag_++ % answer_tags;
    const std::string request =
        nlohmann::json{{"material", into.material.name()}, {"first", first}, {"count", count}, {"tag", tag}}.dump();
    check(MPI_Send(request.data(), static_cast<int>(request.size()), MPI_CHAR, holder, request_tag, comm_), "MPI_Send");
    if (!nlohmann::json::parse(receive_whole(comm_, holder, tag).second).at("have").get<bool>()) return false;
    std::vector<MPI_Request> requests;
    auto receive = [&](void* data, std::size_t bytes) {
        for_each_piece(static_cast<std::byte*>(data), bytes, [&](std::byte* p, int n) {
            check(MPI_Irecv(p, n, MPI_BYTE, holder, tag, comm_, &requests.emplace_back()), "MPI_Irecv");
        });
        received_ += bytes;
    };
    const std::uint64_t at = first - into.first;  // a multiple of 64
    receive(into.codes.data() + at, 2 * count);
    receive(into.capture.data() + at / 64, 8 * ((count + 63) / 64));
    for (MPI_Request& r : requests) wait_politely(r);
    return true;
}

}  // namespace dtb::mpi
