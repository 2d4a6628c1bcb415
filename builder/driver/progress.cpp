#include "builder/driver/progress.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/core.h>

namespace dtb {

namespace {

std::string duration_text(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    if (s < 60) return fmt::format("{}s", s);
    if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
    return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
}

}  // namespace

std::string with_commas(std::uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

Progress::Progress(BuildOptions::Output output, std::size_t materials, std::uint64_t positions)
    : output_(output), materials_(materials), total_(positions), start_(Clock::now()) {
    if (output_ == BuildOptions::Output::automatic)
        output_ = isatty(fileno(stdout)) ? BuildOptions::Output::terminal : BuildOptions::Output::log;
    if (output_ == BuildOptions::Output::terminal) painter_ = std::thread([this] { paint_loop(); });
}

Progress::~Progress() {
    {
        const std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (painter_.joinable()) painter_.join();
    if (output_ == BuildOptions::Output::terminal) {
        std::fputs("\r\x1b[2K", stdout);  // clear the status line
        std::fflush(stdout);
    }
}

void Progress::note(const std::string& line) {
    if (output_ == BuildOptions::Output::quiet) return;
    const std::lock_guard lock(mutex_);
    print_line(line);
}

void Progress::started(const std::string& name) {
    const std::lock_guard lock(mutex_);
    current_[name] = "";
}

void Progress::finished(const std::string& name, const std::string& line) {
    const std::lock_guard lock(mutex_);
    current_.erase(name);
    if (output_ != BuildOptions::Output::quiet) print_line(line);
}

void Progress::level(const Material& m, int level, int levels) {
    const std::lock_guard lock(mutex_);
    current_[m.name()] = fmt::format(" level {}/{}", level + 1, levels);
}

void Progress::finished(const ManifestEntry& e, int ranks) {
    if (output_ == BuildOptions::Output::quiet) return;
    const std::lock_guard lock(mutex_);
    current_.erase(e.material.name());
    ++finished_;
    const double rate = e.seconds > 0 ? static_cast<double>(e.positions) / e.seconds : 0;
    print_line(fmt::format("{:<10} {:>15} positions  wins {} draws {} losses {}  longest win {}  {:.2f} s  "
                           "{:.1f} M positions/s{}",
                           e.material.name(), with_commas(e.positions), with_commas(e.wins), with_commas(e.draws),
                           with_commas(e.losses), e.longest_win < 0 ? "-" : std::to_string(e.longest_win), e.seconds,
                           rate / 1e6, ranks > 1 ? fmt::format("  on {} ranks", ranks) : ""));
}

void Progress::print_line(const std::string& line) {
    if (output_ == BuildOptions::Output::terminal) std::fputs("\r\x1b[2K", stdout);
    std::fputs((line + "\n").c_str(), stdout);
    if (output_ == BuildOptions::Output::terminal) paint();
    std::fflush(stdout);
}

void Progress::paint() {
    const double elapsed = seconds_since(start_);
    const double rate = elapsed > 0 ? static_cast<double>(done_.load()) / elapsed : 0;
    std::string working;
    for (const auto& [name, level] : current_) working += (working.empty() ? "" : ", ") + name + level;
    const double left = rate > 0 ? static_cast<double>(this->left()) / rate : 0;
    std::fputs(fmt::format("[{}/{} materials] {}  {:.1f} M positions/s  {} left", finished_, materials_,
                           working.empty() ? "starting" : working, rate / 1e6, rate > 0 ? duration_text(left) : "?")
                   .c_str(),
               stdout);
}

void Progress::paint_loop() {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) {
        std::fputs("\r\x1b[2K", stdout);
        paint();
        std::fflush(stdout);
    }
}

}  // namespace dtb
