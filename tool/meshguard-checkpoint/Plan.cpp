// meshguard-checkpoint plan: what each rank of a target mesh would read
// when it loads a checkpoint, and what would not fit, before a job is
// launched on it.
//
//   plan DIR --mesh 2x2 [--placements 'S(0),R'] [--entry NAME=PLACEMENTS]...
//            [--shape NAME=AxB]... [--rank N]
//
// --placements applies to every tensor entry (a Shard of a dim an entry
// lacks is Replicate for it); --entry gives one entry its own (and is then
// the only kind of entry planned unless --placements is given too);
// --shape states the global shape the job expects. Exit 1 when something
// does not fit (an entry missing, another shape, a bad placement).

#include "Plan.h"

#include <iostream>
#include <optional>
#include <sstream>

#include <c10/util/Exception.h>

#include <meshguard/runtime/CheckpointPlan.h>

namespace {

using meshguard::Placement;
using meshguard::Placements;
namespace ckpt = meshguard::checkpoint;

std::vector<std::string> splitOn(const std::string &Text, char Sep) {
  std::vector<std::string> Out;
  std::stringstream In(Text);
  std::string Part;
  while (std::getline(In, Part, Sep))
    Out.push_back(Part);
  return Out;
}

std::optional<std::vector<int64_t>> parseSizes(const std::string &Text) {
  std::vector<int64_t> Out;
  for (const std::string &Part : splitOn(Text, 'x')) {
    if (Part.empty() ||
        Part.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    Out.push_back(std::stoll(Part));
  }
  return Out;
}

// "R", "Replicate", "S(1)", "S1", "Shard(1)".
std::optional<Placement> parsePlacement(const std::string &Text) {
  if (Text == "R" || Text == "Replicate" || Text == "Replicate()")
    return meshguard::Replicate{};
  for (const char *Prefix : {"Shard(", "S(", "S"}) {
    const std::string P = Prefix;
    if (Text.rfind(P, 0) != 0)
      continue;
    std::string Dim = Text.substr(P.size());
    if (P.back() == '(') {
      if (Dim.empty() || Dim.back() != ')')
        return std::nullopt;
      Dim.pop_back();
    }
    if (Dim.empty() || Dim.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return meshguard::Shard{std::stoll(Dim)};
  }
  return std::nullopt;
}

std::optional<Placements> parsePlacements(const std::string &Text) {
  Placements Out;
  for (const std::string &Part : splitOn(Text, ',')) {
    auto P = parsePlacement(Part);
    if (!P)
      return std::nullopt;
    Out.push_back(*P);
  }
  return Out;
}

std::string sizesText(const std::vector<int64_t> &V) {
  std::string Out = "[";
  for (size_t I = 0; I < V.size(); ++I)
    Out += (I ? ", " : "") + std::to_string(V[I]);
  return Out + "]";
}

struct Request {
  std::string Dir;
  std::vector<int64_t> MeshShape;
  std::optional<Placements> Default;
  std::map<std::string, Placements> Entries;
  std::map<std::string, std::vector<int64_t>> Shapes;
  std::optional<int64_t> OnlyRank;
};

// Returns an error text, or "" when the arguments parse.
std::string parseArgs(const std::vector<std::string> &Args, Request &R) {
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    const bool HasValue = I + 1 < Args.size();
    if (A.rfind("--", 0) != 0) {
      if (!R.Dir.empty())
        return "more than one directory: '" + R.Dir + "' and '" + A + "'";
      R.Dir = A;
      continue;
    }
    if (!HasValue)
      return A + " needs a value";
    const std::string &V = Args[++I];
    if (A == "--mesh") {
      auto S = parseSizes(V);
      if (!S || S->empty())
        return "--mesh '" + V + "': expected sizes like 4 or 2x2";
      R.MeshShape = *S;
    } else if (A == "--placements") {
      R.Default = parsePlacements(V);
      if (!R.Default)
        return "--placements '" + V + "': expected e.g. 'S(0),R'";
    } else if (A == "--entry" || A == "--shape") {
      const size_t Eq = V.rfind('=');
      if (Eq == std::string::npos || Eq == 0)
        return A == "--entry" ? "--entry '" + V + "': expected NAME=PLACEMENTS"
                              : "--shape '" + V + "': expected NAME=AxB";
      const std::string Name = V.substr(0, Eq), Value = V.substr(Eq + 1);
      if (A == "--entry") {
        auto P = parsePlacements(Value);
        if (!P)
          return "--entry '" + V + "': expected placements like 'S(0),R'";
        R.Entries[Name] = *P;
      } else {
        auto S = parseSizes(Value);
        if (!S)
          return "--shape '" + V + "': expected sizes like 4x5";
        R.Shapes[Name] = *S;
      }
    } else if (A == "--rank") {
      if (V.empty() || V.find_first_not_of("0123456789") != std::string::npos)
        return "--rank '" + V + "': expected a rank";
      R.OnlyRank = std::stoll(V);
    } else {
      return "unknown option " + A;
    }
  }
  if (R.Dir.empty())
    return "no checkpoint directory";
  if (R.MeshShape.empty())
    return "--mesh is required";
  return "";
}

std::vector<int64_t> coordinateOf(int64_t Rank,
                                  const std::vector<int64_t> &Shape) {
  std::vector<int64_t> C(Shape.size());
  for (size_t D = Shape.size(); D-- > 0;) {
    C[D] = Rank % Shape[D];
    Rank /= Shape[D];
  }
  return C;
}

int plan(const std::vector<std::string> &Args) {
  Request R;
  if (std::string Error = parseArgs(Args, R); !Error.empty()) {
    std::cerr << "meshguard-checkpoint plan: " << Error << "\n";
    return 2;
  }
  const ckpt::CheckpointInfo Info = ckpt::read_info(R.Dir);
  std::vector<std::string> Problems;
  std::map<std::string, Placements> Targets = R.Entries;
  if (R.Default || R.Entries.empty()) {
    const Placements Default = R.Default.value_or(
        Placements(R.MeshShape.size(), meshguard::Replicate{}));
    for (const auto &[Name, Entry] : Info.tensors) {
      if (Targets.count(Name))
        continue;
      Placements P = Default;
      for (Placement &Each : P)
        if (auto *S = std::get_if<meshguard::Shard>(&Each);
            S && S->dim >= static_cast<int64_t>(Entry.shape.size()))
          Each = meshguard::Replicate{};
      Targets[Name] = P;
    }
  }
  for (const auto &[Name, Shape] : R.Shapes) {
    auto It = Info.tensors.find(Name);
    if (It == Info.tensors.end())
      Problems.push_back("entry '" + Name + "' is not in the checkpoint");
    else if (It->second.shape != Shape)
      Problems.push_back(
          "entry '" + Name + "' has shape " + sizesText(It->second.shape) +
          " in the checkpoint, the job expects " + sizesText(Shape));
  }
  // Entries that cannot be planned are problems; the rest are planned.
  for (auto It = Targets.begin(); It != Targets.end();) {
    try {
      ckpt::plan_rank(Info, {*It}, R.MeshShape,
                      std::vector<int64_t>(R.MeshShape.size(), 0));
      ++It;
    } catch (const c10::Error &E) {
      Problems.emplace_back(E.what_without_backtrace());
      It = Targets.erase(It);
    }
  }
  int64_t World = 1;
  for (int64_t S : R.MeshShape)
    World *= S;
  if (R.OnlyRank && *R.OnlyRank >= World) {
    std::cerr << "meshguard-checkpoint plan: --rank " << *R.OnlyRank
              << " is not on a mesh of " << World << " ranks\n";
    return 2;
  }
  for (int64_t Rank = 0; Rank < World; ++Rank) {
    if (R.OnlyRank && Rank != *R.OnlyRank)
      continue;
    const auto Coordinate = coordinateOf(Rank, R.MeshShape);
    const auto Plans = ckpt::plan_rank(Info, Targets, R.MeshShape, Coordinate);
    uint64_t Bytes = 0;
    std::map<std::string, uint64_t> Files;
    std::ostringstream Lines;
    for (const auto &P : Plans) {
      std::vector<int64_t> End(P.start.size());
      for (size_t D = 0; D < End.size(); ++D)
        End[D] = P.start[D] + P.length[D];
      Lines << "  " << P.entry << " " << meshguard::to_string(Targets[P.entry])
            << ": block " << sizesText(P.start) << ".." << sizesText(End)
            << (P.reads.empty() ? ", reads nothing\n" : "\n");
      for (const auto &Read : P.reads) {
        Lines << "    " << Read.file << " bytes " << Read.offset << ".."
              << Read.offset + Read.length << " (chunk at "
              << sizesText(Read.chunk_offsets) << ")\n";
        Bytes += Read.length;
        Files[Read.file] += Read.length;
      }
    }
    std::cout << "rank " << Rank << " at " << sizesText(Coordinate) << ": "
              << Bytes << " bytes from " << Files.size() << " file(s)\n"
              << Lines.str();
  }
  for (const auto &[Name, Object] : Info.objects)
    std::cout << "object " << Name << ": " << Object.file << " (every rank)\n";
  if (!Problems.empty()) {
    std::cout << Problems.size() << " problem(s):\n";
    for (const std::string &P : Problems)
      std::cout << "  " << P << "\n";
    return 1;
  }
  return 0;
}

} // namespace

int meshguard::tool::runPlan(int Argc, char **Argv) {
  try {
    return plan(std::vector<std::string>(Argv, Argv + Argc));
  } catch (const c10::Error &Error) {
    std::cerr << "meshguard-checkpoint plan: " << Error.what_without_backtrace()
              << "\n";
    return 1;
  }
}
