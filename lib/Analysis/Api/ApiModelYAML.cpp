//===--- ApiModelYAML.cpp - Reading an API model from YAML ----------------===//

#include "meshguard/Analysis/Api/ApiModelYAML.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"

using meshguard::analysis::ApiModel;
using meshguard::analysis::MeshCollectiveEntry;
using meshguard::analysis::ProcessGroupCollectiveEntry;
using meshguard::analysis::SourceEntry;
using meshguard::analysis::SourceKind;

LLVM_YAML_IS_SEQUENCE_VECTOR(SourceEntry)
LLVM_YAML_IS_SEQUENCE_VECTOR(MeshCollectiveEntry)
LLVM_YAML_IS_SEQUENCE_VECTOR(ProcessGroupCollectiveEntry)

namespace {
/// What the mappings need to say where an entry is.
struct ParseContext {
  llvm::StringRef Text;
  llvm::StringRef FileName;
};

/// "file:line:col" of the node being read.
std::string whereIs(llvm::yaml::IO &IO) {
  auto *Ctx = static_cast<ParseContext *>(IO.getContext());
  if (!Ctx || IO.outputting())
    return "";
  const llvm::yaml::Node *N =
      static_cast<llvm::yaml::Input &>(IO).getCurrentNode();
  if (!N)
    return Ctx->FileName.str();
  const char *At = N->getSourceRange().Start.getPointer();
  if (!At || At < Ctx->Text.begin() || At > Ctx->Text.end())
    return Ctx->FileName.str();
  llvm::StringRef Before = Ctx->Text.take_front(At - Ctx->Text.begin());
  size_t Line = Before.count('\n') + 1;
  size_t LineStart = Before.rfind('\n');
  size_t Column = LineStart == llvm::StringRef::npos
                      ? Before.size() + 1
                      : Before.size() - LineStart;
  return (Ctx->FileName + ":" + llvm::Twine(Line) + ":" + llvm::Twine(Column))
      .str();
}
} // namespace

namespace llvm {
namespace yaml {

template <> struct ScalarEnumerationTraits<SourceKind> {
  static void enumeration(IO &IO, SourceKind &Kind) {
    IO.enumCase(Kind, "dtensor", SourceKind::DTensor);
    IO.enumCase(Kind, "plain", SourceKind::Plain);
  }
};

template <> struct MappingTraits<SourceEntry> {
  static void mapping(IO &IO, SourceEntry &E) {
    E.Where = whereIs(IO);
    IO.mapRequired("function", E.Function);
    IO.mapRequired("makes", E.Kind);
  }
  static std::string validate(IO &, SourceEntry &E) {
    return E.Function.empty() ? "'function' must not be empty" : "";
  }
};

template <> struct MappingTraits<MeshCollectiveEntry> {
  static void mapping(IO &IO, MeshCollectiveEntry &E) {
    E.Where = whereIs(IO);
    IO.mapRequired("function", E.Function);
    IO.mapOptional("tensor_arg", E.TensorArg, 0u);
    IO.mapRequired("op", E.OpName);
    IO.mapOptional("guarded", E.Guarded, std::string());
  }
  static std::string validate(IO &, MeshCollectiveEntry &E) {
    if (E.Function.empty() || E.OpName.empty())
      return "'function' and 'op' must not be empty";
    return "";
  }
};

template <> struct MappingTraits<ProcessGroupCollectiveEntry> {
  static void mapping(IO &IO, ProcessGroupCollectiveEntry &E) {
    E.Where = whereIs(IO);
    IO.mapRequired("function", E.Function);
    IO.mapRequired("tensor_args", E.TensorArgs);
    IO.mapRequired("op", E.OpName);
  }
  static std::string validate(IO &, ProcessGroupCollectiveEntry &E) {
    if (E.Function.empty() || E.OpName.empty() || E.TensorArgs.empty())
      return "'function', 'tensor_args' and 'op' must not be empty";
    return "";
  }
};

template <> struct MappingTraits<ApiModel> {
  static void mapping(IO &IO, ApiModel &M) {
    IO.mapOptional("tensor_types", M.TensorTypes);
    IO.mapOptional("tensor_containers", M.TensorContainers);
    IO.mapOptional("mesh_types", M.MeshTypes);
    IO.mapOptional("mesh_of", M.MeshOfFunction);
    IO.mapOptional("op_namespaces", M.OpNamespaces);
    IO.mapOptional("sources", M.Sources);
    IO.mapOptional("mesh_collectives", M.MeshCollectives);
    IO.mapOptional("process_group_collectives", M.ProcessGroupCollectives);
  }
};

} // namespace yaml
} // namespace llvm

namespace meshguard {
namespace analysis {

llvm::Expected<ApiModel> parseApiModel(llvm::StringRef Text,
                                       llvm::StringRef FileName) {
  std::string Errors;
  auto Handler = [](const llvm::SMDiagnostic &Diag, void *Ctx) {
    auto &Out = *static_cast<std::string *>(Ctx);
    if (!Out.empty())
      return; // The first error is the one to fix.
    llvm::raw_string_ostream OS(Out);
    OS << Diag.getLineNo() << ":" << (Diag.getColumnNo() + 1) << ": "
       << Diag.getMessage();
  };
  ApiModel Model;
  ParseContext Where{Text, FileName};
  llvm::yaml::Input In(Text, &Where, Handler, &Errors);
  In >> Model;
  if (In.error() || !Errors.empty()) {
    if (Errors.empty())
      Errors = "1:1: not a meshguard API model";
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "%s:%s",
                                   FileName.str().c_str(), Errors.c_str());
  }
  return Model;
}

llvm::Expected<ApiModel> loadApiModel(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(), "%s: %s",
                                   Path.str().c_str(),
                                   Buffer.getError().message().c_str());
  return parseApiModel((*Buffer)->getBuffer(), Path);
}

} // namespace analysis
} // namespace meshguard
