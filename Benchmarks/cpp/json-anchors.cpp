// The physical anchors of the JSON group: RapidJSON (DOM) and simdjson (on-demand) reading the
// benchmark's Cities document into std::strings, timed on the same machine as ResourceLoader.
//
//   g++ -O2 -std=c++17 json-anchors.cpp -lsimdjson -o json-anchors   (Debian: rapidjson-dev, libsimdjson-dev)
//   ./json-anchors COUNT SECONDS
//
// Prints one JSON line: {"bytes":…,"rapidjson":MB/s,"simdjson":MB/s}, each the median of rounds
// of about SECONDS / 10. `resourceloader-bench` builds and runs it when the headers are there.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <rapidjson/document.h>
#include <simdjson.h>

// {"cities":[{"name":"City 0"},…]}, as citiesDocument(count:) writes it.
static std::string citiesDocument(int count) {
    std::string text = "{\"cities\":[";
    for (int index = 0; index < count; index++) {
        if (index > 0) text += ",";
        text += "{\"name\":\"City " + std::to_string(index) + "\"}";
    }
    return text + "]}";
}

static std::vector<std::string> rapidjsonNames(const std::string &text) {
    rapidjson::Document document;
    document.Parse(text.data(), text.size());
    std::vector<std::string> names;
    if (document.HasParseError() || !document.IsObject()) return names;
    const auto &cities = document["cities"];
    names.reserve(cities.Size());
    for (const auto &city : cities.GetArray()) names.emplace_back(city["name"].GetString(), city["name"].GetStringLength());
    return names;
}

static std::vector<std::string> simdjsonNames(simdjson::ondemand::parser &parser, const simdjson::padded_string &text) {
    std::vector<std::string> names;
    auto document = parser.iterate(text);
    for (auto city : document["cities"].get_array()) {
        std::string_view name = city["name"].get_string();
        names.emplace_back(name);
    }
    return names;
}

template <typename Body> static double megabytesPerSecond(size_t bytes, double seconds, Body body) {
    std::vector<double> rounds;
    auto started = std::chrono::steady_clock::now();
    do {
        auto start = std::chrono::steady_clock::now();
        int runs = 0;
        double elapsed = 0;
        do {
            body();
            runs++;
            elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        } while (elapsed < seconds / 10);
        rounds.push_back(bytes / 1e6 / (elapsed / runs));
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() < seconds);
    std::sort(rounds.begin(), rounds.end());
    return rounds[rounds.size() / 2];
}

int main(int argc, char **argv) {
    int count = argc > 1 ? std::atoi(argv[1]) : 100000;
    double seconds = argc > 2 ? std::atof(argv[2]) : 3;
    std::string text = citiesDocument(count);
    simdjson::padded_string padded(text);
    simdjson::ondemand::parser parser;
    if (rapidjsonNames(text).size() != size_t(count) || simdjsonNames(parser, padded).size() != size_t(count)) {
        std::fprintf(stderr, "a parser read the document wrongly\n");
        return 1;
    }
    size_t checksum = 0;
    double rapid = megabytesPerSecond(text.size(), seconds, [&] { checksum += rapidjsonNames(text).size(); });
    double simd = megabytesPerSecond(text.size(), seconds, [&] { checksum += simdjsonNames(parser, padded).size(); });
    std::printf("{\"bytes\":%zu,\"rapidjson\":%.1f,\"simdjson\":%.1f,\"checksum\":%zu}\n", text.size(), rapid, simd, checksum);
    return 0;
}
