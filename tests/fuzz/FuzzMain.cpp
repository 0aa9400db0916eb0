// Runs a fuzz target without libFuzzer, as the ordinary build's tests do: every file of the
// corpus folders given, then `--runs N` inputs mutated from them (bytes flipped, inserted,
// deleted, repeated, tokens of the target's dictionary put in, two inputs spliced), from a fixed
// seed so that a failure comes back on the next run. A crash or a failed check aborts, as under
// libFuzzer; the input that did it is written to `fuzz-failure-<target>` first.
//
//   fuzz_mcp [--runs N] [--seed S] [--dict FILE] CORPUS_DIR_OR_FILE…
//
// With SANDBENCH_FUZZ=ON (clang) the same targets link libFuzzer instead (scripts/fuzz.sh).
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

std::string g_current;
std::string g_target = "target";

void saveCurrent()
{
    std::ofstream out("fuzz-failure-" + g_target, std::ios::binary);
    out.write(g_current.data(), static_cast<std::streamsize>(g_current.size()));
}

void onAbort(int)
{
    saveCurrent();
    std::fprintf(stderr, "fuzz: failed on an input of %zu bytes, saved as fuzz-failure-%s\n",
                 g_current.size(), g_target.c_str());
    std::_Exit(1);
}

void run(const std::string& input)
{
    g_current = input;
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

std::string readFile(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    std::string bytes(fs::file_size(file), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    return bytes;
}

// libFuzzer's dictionary format: one "token" a line, with \" \\ and \xNN escapes; # comments.
std::vector<std::string> readDictionary(const fs::path& file)
{
    std::vector<std::string> tokens;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        auto open = line.find('"');
        auto close = line.rfind('"');
        if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open) continue;
        std::string token;
        for (std::size_t i = open + 1; i < close; ++i) {
            if (line[i] != '\\' || i + 1 >= close) {
                token += line[i];
            } else if (line[i + 1] == 'x' && i + 3 < close) {
                token += static_cast<char>(std::stoi(line.substr(i + 2, 2), nullptr, 16));
                i += 3;
            } else {
                token += line[++i];
            }
        }
        tokens.push_back(token);
    }
    return tokens;
}

std::string mutate(std::string s, const std::vector<std::string>& corpus,
                   const std::vector<std::string>& dict, std::mt19937_64& rng)
{
    auto below = [&rng](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
    const int steps = 1 + static_cast<int>(below(4));
    for (int step = 0; step < steps; ++step) {
        const std::size_t at = below(s.size() + 1);
        switch (below(7)) {
        case 0: // flip a bit
            if (!s.empty()) s[below(s.size())] ^= static_cast<char>(1u << below(8));
            break;
        case 1: // a random byte in
            s.insert(at, 1, static_cast<char>(below(256)));
            break;
        case 2: // a range out
            s.erase(at, below(16) + 1);
            break;
        case 3: { // a range again
            if (s.empty()) break;
            std::size_t from = below(s.size()),
                        n = below(std::min<std::size_t>(64, s.size() - from));
            s.insert(at, s.substr(from, n + 1));
            break;
        }
        case 4: // a token of the dictionary in
        case 5:
            if (!dict.empty()) s.insert(at, dict[below(dict.size())]);
            break;
        default: { // spliced with another input
            const std::string& other = corpus[below(corpus.size())];
            s = s.substr(0, at) + other.substr(std::min(below(other.size() + 1), other.size()));
            break;
        }
        }
    }
    return s;
}

} // namespace

int main(int argc, char** argv)
{
    g_target = fs::path(argv[0]).filename().string();
    std::signal(SIGABRT, onAbort);
    std::signal(SIGSEGV, onAbort);
    long runs = 0;
    unsigned long long seed = 1;
    std::vector<std::string> corpus, dict;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--runs" && i + 1 < argc) {
            runs = std::atol(argv[++i]);
        } else if (arg == "--seed" && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 10);
        } else if (arg == "--dict" && i + 1 < argc) {
            dict = readDictionary(argv[++i]);
        } else if (fs::is_directory(arg)) {
            for (const auto& entry : fs::directory_iterator(arg))
                if (entry.is_regular_file()) corpus.push_back(readFile(entry.path()));
        } else if (fs::is_regular_file(arg)) {
            corpus.push_back(readFile(arg));
        } else {
            std::fprintf(stderr, "%s: no such corpus file or folder: %s\n", argv[0], arg.c_str());
            return 2;
        }
    }
    if (corpus.empty()) corpus.emplace_back();
    for (const std::string& input : corpus)
        run(input);
    std::mt19937_64 rng(seed);
    for (long i = 0; i < runs; ++i)
        run(mutate(corpus[rng() % corpus.size()], corpus, dict, rng));
    std::printf("%s: %zu corpus inputs and %ld mutations, no failure\n", g_target.c_str(),
                corpus.size(), runs);
    return 0;
}
