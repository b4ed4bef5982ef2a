//===--- SummaryExport.cpp - Writing one TU's summaries -------------------===//
//
// The summaries of the functions the main file defines with external
// linkage (another TU can call only those), as the JSON that
// SummaryDatabase.cpp reads. Only functions with a fact are written (most
// have none), and places become [file index, line, column]: a 50-file
// project's database stays small. "files" lists every file of the TU outside
// the system headers with its MD5: the main file's hash decides whether an
// entry is current, the others let meshguard-run reuse the file when
// nothing the TU read has changed. Each entry has the hash of its facts, and
// "lookups" what the TU imported from other files (SummaryLookup checks
// those against the database before an entry is used). Each kind of fact
// writes its own field (FactKind.h; the kinds live with the analysis that
// computes them, FactKinds.cpp lists them).
//
//===----------------------------------------------------------------------===//

#include "meshguard/Analysis/Engine/SummaryExport.h"
#include "Summaries/FactKind.h"
#include "meshguard/Analysis/Divergence/DivergentCollectives.h"
#include "meshguard/Analysis/Engine/TUAnalysis.h"
#include "meshguard/Analysis/Placements/PlacementScan.h"
#include "meshguard/Analysis/Summaries/Summaries.h"
#include "meshguard/Analysis/Summaries/SummaryDatabase.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ASTLambda.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

using namespace clang;

namespace meshguard {
namespace analysis {

namespace {

/// The functions (and methods, and template instantiations the main file
/// spells out) defined in the main file with external linkage.
struct Definitions : RecursiveASTVisitor<Definitions> {
  explicit Definitions(const SourceManager &SM) : SM(SM) {}
  bool shouldVisitTemplateInstantiations() const { return false; }
  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true; // Not the main file's.
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->doesThisDeclarationHaveABody() && !FD->isDependentContext() &&
        !FD->isInvalidDecl() && !isLambdaCallOperator(FD) &&
        FD->isExternallyVisible() &&
        SM.isWrittenInMainFile(SM.getExpansionLoc(FD->getLocation())))
      Found.push_back(FD);
    return true;
  }
  const SourceManager &SM;
  std::vector<const FunctionDecl *> Found;
};

class Writer final : public PlaceWriter {
public:
  explicit Writer(const SourceManager &SM) : SM(SM) {
    // Every file of the TU outside the system headers, main file first.
    addFile(SM.getMainFileID());
    // From the source locations' entries, not the file cache: in clangd
    // the cache also holds the preamble's files, of a file manager that may
    // be gone; the entries of a preamble are "loaded" ones.
    for (unsigned I = 0; I < SM.local_sloc_entry_size(); ++I)
      addEntry(SM.getLocalSLocEntry(I));
    for (unsigned I = 0; I < SM.loaded_sloc_entry_size(); ++I) {
      bool Invalid = false;
      const SrcMgr::SLocEntry &E = SM.getLoadedSLocEntry(I, &Invalid);
      if (!Invalid)
        addEntry(E);
    }
  }

  void addEntry(const SrcMgr::SLocEntry &E) {
    if (!E.isFile())
      return;
    SourceLocation Loc = SourceLocation::getFromRawEncoding(E.getOffset());
    if (Loc.isInvalid() || SM.isInSystemHeader(Loc))
      return;
    FileID FID = SM.getFileID(Loc);
    if (FID.isValid() && !Indices.count(FID))
      addFile(FID);
  }

  /// The index in "files" of the file \p Loc is written in (-1: none).
  int64_t fileOf(SourceLocation Loc) {
    FileID FID = SM.getFileID(SM.getExpansionLoc(Loc));
    auto It = Indices.find(FID);
    return It == Indices.end() ? addFile(FID) : It->second;
  }

  /// [file, line, column] of \p Loc (null when it is nowhere on disk).
  llvm::json::Value place(SourceLocation Loc) {
    SourceLocation E = SM.getExpansionLoc(Loc);
    int64_t File = fileOf(E);
    if (File < 0)
      return nullptr;
    return llvm::json::Array{File, SM.getExpansionLineNumber(E),
                             SM.getExpansionColumnNumber(E)};
  }

  /// The place of a fact: its call here, or the place it came from.
  llvm::json::Value place(const clang::Expr *Call,
                          const ExternalSite *Elsewhere) override {
    if (Call)
      return place(Call->getBeginLoc());
    if (!Elsewhere)
      return nullptr;
    return llvm::json::Array{externalFile(Elsewhere->File), Elsewhere->Line,
                             Elsewhere->Column};
  }

  llvm::json::Array takeFiles() { return std::move(Files); }
  /// The path of file index \p I.
  llvm::StringRef path(int64_t I) const {
    if (I < 0 || static_cast<size_t>(I) >= Paths.size())
      return "";
    return Paths[I];
  }

private:
  int64_t addFile(FileID FID) {
    OptionalFileEntryRef FE = SM.getFileEntryRefForID(FID);
    std::optional<llvm::MemoryBufferRef> Buffer =
        SM.getBufferOrNone(FID, SourceLocation());
    if (!FE || !Buffer) {
      Indices[FID] = -1;
      return -1;
    }
    llvm::SmallString<256> Path(FE->getName());
    SM.getFileManager().makeAbsolutePath(Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
    int64_t Index = externalFile(Path, summaryContentHash(Buffer->getBuffer()));
    Indices[FID] = Index;
    return Index;
  }

  /// A file by path (a place imported from another TU's summary, whose
  /// hash this TU does not know: "").
  int64_t externalFile(llvm::StringRef Path, std::string Hash = "") {
    auto [It, New] = ByPath.try_emplace(Path, Files.size());
    if (New) {
      Files.push_back(llvm::json::Array{Path.str(), std::move(Hash)});
      Paths.push_back(Path.str());
    }
    return It->second;
  }

  const SourceManager &SM;
  llvm::DenseMap<FileID, int64_t> Indices;
  llvm::StringMap<int64_t> ByPath;
  llvm::json::Array Files;
  std::vector<std::string> Paths;
};

/// [file index, line, column] with the index replaced by the path.
llvm::json::Value placeByPath(const llvm::json::Value &At, const Writer &W) {
  const llvm::json::Array *A = At.getAsArray();
  std::optional<int64_t> File =
      A && A->size() == 3 ? (*A)[0].getAsInteger() : std::nullopt;
  if (!File)
    return At;
  return llvm::json::Array{W.path(*File), (*A)[1], (*A)[2]};
}

/// The MD5 of an entry's facts, everything but its USR, with file indices
/// replaced by paths (an index depends on the other files of the TU, which
/// no caller sees). Fields that hold facts with places ("at") are objects or
/// arrays of objects; any such field, present or future, is covered.
std::string entryHash(const llvm::json::Object &F, const Writer &W) {
  llvm::json::Object Facts;
  for (const auto &[Key, Value] : F) {
    if (Key == "usr")
      continue;
    if (std::optional<int64_t> File = Value.getAsInteger();
        Key == "file" && File) {
      Facts[Key] = W.path(*File);
      continue;
    }
    if (const llvm::json::Object *O = Value.getAsObject();
        O && O->get("at")) { // "coll"
      llvm::json::Object Copy = *O;
      Copy["at"] = placeByPath(*O->get("at"), W);
      Facts[Key] = std::move(Copy);
      continue;
    }
    const llvm::json::Array *List = Value.getAsArray();
    if (!List) {
      Facts[Key] = Value;
      continue;
    }
    llvm::json::Array Resolved;
    for (const llvm::json::Value &Item : *List) {
      const llvm::json::Object *O = Item.getAsObject();
      if (!O || !O->get("at")) {
        Resolved.push_back(Item);
        continue;
      }
      llvm::json::Object Copy = *O;
      Copy["at"] = placeByPath(*O->get("at"), W);
      Resolved.push_back(std::move(Copy));
    }
    Facts[Key] = std::move(Resolved);
  }
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::json::Value(std::move(Facts)); // Keys sorted: canonical.
  return summaryContentHash(Text);
}

/// The callees without a body in the TU that its code (outside the system
/// headers) calls directly: what another TU's summary could tell about.
/// (The API model's own functions are left out, in headers that are not
/// system headers too: no summary of another file can be about them.)
struct BodilessCallees : RecursiveASTVisitor<BodilessCallees> {
  BodilessCallees(const SourceManager &SM, const ApiIndex &Index)
      : SM(SM), Index(Index) {}
  bool shouldVisitTemplateInstantiations() const { return true; }
  bool TraverseDecl(Decl *D) {
    if (D && !isa<TranslationUnitDecl>(D) &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true; // Nothing of the user's inside.
    return RecursiveASTVisitor::TraverseDecl(D);
  }
  bool VisitCallExpr(CallExpr *Call) {
    // Operator calls other than () are the API's tensor arithmetic, which
    // summaries never describe (SummaryProvider::get is not asked).
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->getOperator() != OO_Call)
      return true;
    const FunctionDecl *FD = Call->getDirectCallee();
    if (FD && !FD->hasBody() && !FD->isDependentContext() &&
        !FD->isInvalidDecl() && !SM.isInSystemHeader(FD->getLocation()) &&
        !isModelFunction(Index, *FD))
      Found.insert(FD->getCanonicalDecl());
    return true;
  }
  const SourceManager &SM;
  const ApiIndex &Index;
  llvm::SetVector<const FunctionDecl *> Found;
};

} // namespace

std::string exportSummaries(TUAnalysis &Engine, llvm::StringRef Command,
                            SummaryLookup *Lookups) {
  ASTContext &Ctx = Engine.context();
  SummaryProvider &Summaries = Engine.summaries();
  // The engine's memos (with its database, as the other facts see callees
  // of other files): the export runs no analysis of its own.
  DivergenceMemo &Divergence = Engine.divergenceMemo();
  PlacementMemo &Placements = Engine.placementMemo();
  const SourceManager &SM = Ctx.getSourceManager();
  Writer W(SM);
  // TraverseAST: the TU, or in clangd the main file's declarations only
  // (its traversal scope; the preamble's are not deserialised).
  Definitions Defs(SM);
  Defs.TraverseAST(Ctx);

  // A function without a summary (a limit hit) may still perform one.
  const FunctionSummary NoSummary{};
  llvm::json::Array Functions;
  for (const FunctionDecl *FD : Defs.Found) {
    const FunctionSummary *S = Summaries.get(FD);
    auto Replicas = [&] {
      std::vector<ExportedReplica> Out;
      for (const ReplicaParameter &R : Divergence.replicaParameters(*FD))
        Out.push_back({R.Param, R.FromLocal, R.Elsewhere});
      return Out;
    };
    ExportedFunction Function{
        *FD, S ? *S : NoSummary, Divergence, Placements, W, Replicas};
    llvm::json::Object F;
    for (const FactKind *Kind : factKinds())
      if (llvm::json::Value Facts = Kind->write(Function);
          Facts.kind() != llvm::json::Value::Null)
        F[Kind->key()] = std::move(Facts);
    if (F.empty())
      continue; // Nothing to say: an unknown callee, as without a summary.
    std::string USR = functionUSR(*FD);
    if (USR.empty())
      continue;
    F["usr"] = USR;
    F["name"] = FD->getNameAsString();
    F["qname"] = FD->getQualifiedNameAsString();
    F["file"] = W.fileOf(FD->getLocation());
    F["hash"] = entryHash(F, W);
    Functions.push_back(std::move(F));
  }

  llvm::json::Array LookupList;
  if (Lookups) {
    // Every callee another file may define, asked about even when no
    // function needed its summary: when its entry appears or changes, this
    // TU's results may change (what meshguard-run re-checks by).
    BodilessCallees Callees(SM, Summaries.index());
    Callees.TraverseAST(Ctx);
    for (const FunctionDecl *FD : Callees.Found)
      if (std::string USR = functionUSR(*FD); !USR.empty())
        Lookups->lookup(USR);
    for (const auto &[USR, Hash] : Lookups->recorded())
      LookupList.push_back(llvm::json::Array{USR, Hash});
  }
  llvm::json::Object Root{{"version", SummaryFormatVersion},
                          {"tu", mainFilePath(Ctx)},
                          {"command", Command},
                          {"files", W.takeFiles()},
                          {"lookups", std::move(LookupList)},
                          {"functions", std::move(Functions)}};
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  OS << llvm::json::Value(std::move(Root));
  return Text;
}

} // namespace analysis
} // namespace meshguard
