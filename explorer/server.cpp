#include "explorer/server.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include <httplib.h>
#include <sys/socket.h>

#include "explorer/explorer.hpp"
#include "explorer/page.hpp"

namespace dtb::explorer {

namespace {

// What the operator needs to know of a request (a missing or damaged table,
// a fault), on the server's standard error, one line a request.
void log_for_operator(const httplib::Request& request, int status, const std::string& what) {
    std::string target = request.path;
    for (char separator = '?'; const auto& [name, value] : request.params) {
        target += separator + name + "=" + value;
        separator = '&';
    }
    std::fprintf(stderr, "dtb serve: %s %s: %d: %s\n", request.method.c_str(), target.c_str(), status, what.c_str());
}

void send(const httplib::Request& request, httplib::Response& response, const Reply& reply) {
    if (!reply.log.empty()) log_for_operator(request, reply.status, reply.log);
    response.status = reply.status;
    response.set_content(reply.body.dump(), "application/json");
}

void refuse(httplib::Response& response, int status, const std::string& what) {
    response.status = status;
    response.set_content(nlohmann::ordered_json{{"error", what}}.dump(), "application/json");
}

// The query parameters `names`, all required: false (and a 400 reply) if one is missing.
bool parameters(const httplib::Request& request, httplib::Response& response,
                std::initializer_list<const char*> names, const std::string& example) {
    for (const char* name : names)
        if (!request.has_param(name)) {
            refuse(response, 400, "missing parameter '" + std::string(name) + "': for example " + example);
            return false;
        }
    return true;
}

// A count written in the URL with its '=' as it is (count=E=21): a URL's
// parameters are split at '=', so the value would arrive cut. The message
// gives the parameter written as it must be; empty when there is none.
std::string count_written_plainly(const httplib::Request& request) {
    const std::string& target = request.target;
    std::size_t at = target.find('?');
    while (at != std::string::npos) {
        const std::size_t end = target.find('&', at + 1);
        const std::string item = target.substr(at + 1, end == std::string::npos ? end : end - at - 1);
        if (item.starts_with("count=") && item.find('=', 6) != std::string::npos) {
            std::string written = "count=";
            for (const char c : item.substr(6)) written += c == '=' ? "%3D" : c == ',' ? "%2C" : std::string(1, c);
            return "the count's '=' must be written %3D in a URL: " + written + " (" + item.substr(6) + ")";
        }
        at = end;
    }
    return {};
}

}  // namespace

struct Server::Http {
    httplib::Server server;
};

Server::Server(const Explorer& explorer, ServeOptions options)
    : http_(std::make_unique<Http>()), options_(std::move(options)) {
    const std::size_t threads = options_.threads > 0 ? static_cast<std::size_t>(options_.threads)
                                                     : std::max<std::size_t>(8, std::thread::hardware_concurrency());
    httplib::Server& s = http_->server;
    s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    // SO_REUSEADDR alone, so that a server started again binds while the last
    // one's connections linger; not cpp-httplib's default SO_REUSEPORT, under
    // which a second server on a port in use starts and takes part of its
    // requests.
    s.set_socket_options([](auto socket) {
        const int yes = 1;
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    s.Get("/api/probe", [&explorer](const httplib::Request& request, httplib::Response& response) {
        if (!parameters(request, response, {"variant", "fen"}, "/api/probe?variant=canadian&fen=W:WK1,K2,K3:BK72"))
            return;
        if (const std::string plain = count_written_plainly(request); !plain.empty()) return refuse(response, 400, plain);
        std::optional<std::string> counts;
        if (request.has_param("count")) counts = request.get_param_value("count");
        send(request, response, explorer.probe(request.get_param_value("variant"), request.get_param_value("fen"), counts));
    });
    s.Get("/api/stats", [&explorer](const httplib::Request& request, httplib::Response& response) {
        if (!parameters(request, response, {"variant", "material"}, "/api/stats?variant=canadian&material=KKKvK"))
            return;
        send(request, response, explorer.stats(request.get_param_value("variant"), request.get_param_value("material"),
                                      request.has_param("rules")));
    });
    s.Get("/api/variants", [&explorer](const httplib::Request& request, httplib::Response& response) {
        send(request, response, explorer.variant_list());
    });
    // The page: its files by name, index.html at /.
    for (const PageFile& file : page_files()) {
        const auto handler = [&file](const httplib::Request&, httplib::Response& response) {
            response.set_content(file.content.data(), file.content.size(), file.content_type.data());
        };
        s.Get(std::string(file.path), handler);
        if (file.path == "/index.html") s.Get("/", handler);
    }
    // Only GET is served: any other method is told so (405), whatever the path.
    const auto only_get = [](const httplib::Request& request, httplib::Response& response) {
        response.set_header("Allow", "GET");
        refuse(response, 405, request.method + " " + request.path + ": the explorer answers GET requests only");
    };
    s.Post(".*", only_get);
    s.Put(".*", only_get);
    s.Patch(".*", only_get);
    s.Delete(".*", only_get);
    s.Options(".*", only_get);
    // A body is never needed: one over 64 KiB is refused (413) before it is read.
    s.set_payload_max_length(std::size_t{1} << 16);
    // Any other path, what cpp-httplib refuses itself (a body or a URL too
    // long: 413, 414), and what a handler throws still answer in JSON.
    s.set_error_handler([](const httplib::Request& request, httplib::Response& response) {
        if (!response.body.empty()) return;
        switch (response.status) {
            case 404:
                refuse(response, 404, "no such page: " + request.path +
                                          " (the explorer is at /, the API at /api/probe, /api/stats, /api/variants)");
                break;
            case 413: refuse(response, 413, "the request's body is too long: the explorer needs none"); break;
            case 414: refuse(response, 414, "the URL is too long: a FEN and a material fit in a few hundred characters"); break;
            default: refuse(response, response.status, "the request was refused (HTTP " + std::to_string(response.status) + ")");
        }
    });
    s.set_exception_handler([](const httplib::Request& request, httplib::Response& response, std::exception_ptr thrown) {
        try {
            std::rethrow_exception(thrown);
        } catch (const std::exception& e) {
            log_for_operator(request, 500, e.what());
        } catch (...) {
            log_for_operator(request, 500, "unknown error");
        }
        refuse(response, 500, "the server failed on this request; its operator's log says why");
    });
}

Server::~Server() = default;

int Server::bind() {
    httplib::Server& s = http_->server;
    const int port = options_.port == 0 ? s.bind_to_any_port(options_.host)
                                        : (s.bind_to_port(options_.host, options_.port) ? options_.port : -1);
    if (port < 0)
        throw std::runtime_error("cannot listen on " + options_.host + " port " + std::to_string(options_.port) +
                                 ": the port is taken or the address is not this machine's (give --port or --host)");
    return port;
}

bool Server::run() { return http_->server.listen_after_bind(); }

void Server::stop() { http_->server.stop(); }

}  // namespace dtb::explorer
