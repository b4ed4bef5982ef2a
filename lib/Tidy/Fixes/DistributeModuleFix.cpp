//===--- DistributeModuleFix.cpp - Insert a missing distribute_module -----===//

#include "DistributeModuleFix.h"
#include "../NamedFunctions.h"
#include "EditableSource.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace meshguard {
namespace tidy {

namespace {

/// The whitespace that starts the line of \p Loc, up to it ("" when other
/// text precedes it on that line).
StringRef indentationOf(SourceLocation Loc, const SourceManager &SM) {
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  StringRef Buffer = SM.getBufferData(File);
  StringRef Before = Buffer.take_front(Offset);
  StringRef Line = Before.substr(Before.rfind('\n') + 1);
  return Line.find_first_not_of(" \t") == StringRef::npos ? Line : "";
}

} // namespace

std::string distributeModuleArgument(const VarDecl &Module,
                                     const analysis::ApiIndex &Index) {
  return Index.isModuleObjectType(Module.getType())
             ? Module.getNameAsString()
             : "*" + Module.getNameAsString();
}

std::optional<FixItHint> distributeModuleFix(const FunctionDecl &FD,
                                             const VarDecl &Module,
                                             const analysis::ApiIndex &Index,
                                             MeshLocals *Cache) {
  const DeclStmt *DS = declaringStmt(FD, Module, Index, Cache);
  if (!DS || !Module.getIdentifier())
    return std::nullopt;
  const ASTContext &Ctx = FD.getASTContext();
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Begin = DS->getBeginLoc(), End = DS->getEndLoc();
  if (!isEditable({Begin, End}, SM))
    return std::nullopt;
  // meshguard::distribute_module(module, mesh): declared here, and taking
  // the mesh found.
  llvm::SmallVector<const FunctionDecl *, 2> Distribute = functionsNamed(
      const_cast<ASTContext &>(Ctx), "meshguard::distribute_module");
  if (Distribute.empty())
    return std::nullopt;
  auto Accepts = [&](QualType Mesh) {
    return acceptsArgument(Distribute, 1, Mesh);
  };
  std::optional<std::string> Mesh =
      meshExpressionInScope(FD, *DS, /*DTensorVars=*/{}, Index, Cache, Accepts);
  if (!Mesh)
    return std::nullopt;
  SourceLocation After =
      Lexer::getLocForEndOfToken(End, 0, SM, Ctx.getLangOpts());
  if (After.isInvalid())
    return std::nullopt;
  return FixItHint::CreateInsertion(
      After,
      ("\n" + indentationOf(Begin, SM) + "meshguard::distribute_module(" +
       distributeModuleArgument(Module, Index) + ", " + *Mesh + ");")
          .str());
}

} // namespace tidy
} // namespace meshguard
