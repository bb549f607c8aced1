// Attribute statements (TVM's AttrStmt, `T.attr(node, key, value)`) after lowering, before the
// host/device split and code generation: those TVM's code generators read as hints — pragmas,
// alignment and scope marks, keys tsch does not know — leave their bodies, as TVM's LLVM code
// generator visits past them; those whose meaning tsch does not implement (thread launches,
// buffer binding, imported code) are refused rather than dropped. (Not a pass of TVM's
// pipeline: tvm.lower still shows them.)
#include <set>
#include <string>

#include "ir/functor.h"
#include "support/error.h"
#include "transform/pass.h"
#include "transform/pipeline.h"

namespace tsch::transform {
namespace {

class AttrHintStripper : public ir::IRMutator {
 public:
  ir::Stmt mutate_AttrStmt(const ir::AttrStmtNode& n, const ir::Stmt&) override {
    const ir::AttrStmtNode* attr = &n;
    static const std::set<std::string> meaningful = {"thread_extent", "virtual_thread",  "buffer_bind_scope",
                                                     "realize_scope", "pragma_import_c", "pragma_import_llvm",
                                                     "coproc_scope",  "extern_scope"};
    TSCH_USER_ASSERT(!meaningful.count(attr->attr_key), NotImplementedError)
        << "not supported yet: building T.attr(..., \"" << attr->attr_key << "\", ...)";
    return mutate(attr->body);
  }
};

}  // namespace

ir::IRModule strip_attr_hints(const ir::IRModule& mod) {
  auto out = std::make_shared<ir::IRModuleNode>(*mod);
  for (auto& [name, base] : out->functions) {
    if (ir::PrimFunc f = ir::as_prim_func(base)) base = with_body(f, AttrHintStripper().mutate(f->body));
  }
  return out;
}

}  // namespace tsch::transform
