// S-expression dump of the AST; see ast_dump.h.
#include "syntax/ast_dump.h"

#include <fmt/format.h>

namespace tsch::ast {
namespace {

class Dumper {
 public:
  std::string out;

  void loc(const SourceLoc& l) { out += fmt::format("@{}:{}:{}", l.line, l.col, l.len); }
  void name(Symbol s) { out += s == 0 ? std::string("-") : symbol_name(s); }
  void opt(const ExprPtr& e) {
    if (e)
      expr(*e);
    else
      out += " _";
  }
  void exprs(const std::vector<ExprPtr>& list) {
    out += " [";
    for (const auto& e : list) opt(e);
    out += " ]";
  }
  void params(const std::vector<Param>& list) {
    out += " (params";
    for (const auto& p : list) {
      out += fmt::format(" (p{} ", static_cast<int>(p.kind));
      name(p.name);
      loc(p.loc);
      opt(p.annotation);
      opt(p.default_value);
      out += ")";
    }
    out += ")";
  }
  void args(const std::vector<Arg>& list) {
    out += " (args";
    for (const auto& a : list) {
      out += fmt::format(" (a{} ", static_cast<int>(a.kind));
      name(a.name);
      loc(a.loc);
      opt(a.value);
      out += ")";
    }
    out += ")";
  }
  void generators(const std::vector<Comprehension>& gens) {
    for (const auto& g : gens) {
      out += " (for";
      opt(g.target);
      opt(g.iter);
      exprs(g.ifs);
      out += ")";
    }
  }
  void fstring(const FString& f) {
    for (const auto& part : f.parts) {
      out += " (part " + fmt::format("{:?}", part.literal);
      opt(part.value);
      out += fmt::format(" {} {:?}", static_cast<int>(part.conversion), part.debug_text);
      if (part.spec) expr(*part.spec);
      out += ")";
    }
  }

  void expr(const Expr& e) {
    out += fmt::format(" ({}", static_cast<int>(e.kind));
    loc(e.loc);
    switch (e.kind) {
      case ExprKind::Name:
        out += " ";
        name(static_cast<const Name&>(e).id);
        break;
      case ExprKind::Constant: {
        const auto& c = static_cast<const Constant&>(e);
        out += fmt::format(" {} {} {} {} {:?}", static_cast<int>(c.type), c.bool_value, c.int_value, c.float_value,
                           c.str_value);
        break;
      }
      case ExprKind::FString:
        fstring(static_cast<const FString&>(e));
        break;
      case ExprKind::List:
        exprs(static_cast<const List&>(e).elts);
        break;
      case ExprKind::Tuple: {
        const auto& t = static_cast<const Tuple&>(e);
        out += t.parenthesized ? " paren" : "";
        exprs(t.elts);
        break;
      }
      case ExprKind::Dict: {
        const auto& d = static_cast<const Dict&>(e);
        exprs(d.keys);
        exprs(d.values);
        break;
      }
      case ExprKind::Set:
        exprs(static_cast<const Set&>(e).elts);
        break;
      case ExprKind::SetComp: {
        const auto& c = static_cast<const SetComp&>(e);
        opt(c.elt);
        generators(c.generators);
        break;
      }
      case ExprKind::ListComp: {
        const auto& c = static_cast<const ListComp&>(e);
        opt(c.elt);
        generators(c.generators);
        break;
      }
      case ExprKind::DictComp: {
        const auto& c = static_cast<const DictComp&>(e);
        opt(c.key);
        opt(c.value);
        generators(c.generators);
        break;
      }
      case ExprKind::Attribute: {
        const auto& a = static_cast<const Attribute&>(e);
        opt(a.value);
        out += " .";
        name(a.attr);
        break;
      }
      case ExprKind::Subscript: {
        const auto& s = static_cast<const Subscript&>(e);
        opt(s.value);
        opt(s.index);
        break;
      }
      case ExprKind::Slice: {
        const auto& s = static_cast<const Slice&>(e);
        opt(s.lower);
        opt(s.upper);
        opt(s.step);
        break;
      }
      case ExprKind::Call: {
        const auto& c = static_cast<const Call&>(e);
        opt(c.func);
        args(c.args);
        break;
      }
      case ExprKind::BinOp: {
        const auto& b = static_cast<const BinOp&>(e);
        out += fmt::format(" {}", static_cast<int>(b.op));
        opt(b.left);
        opt(b.right);
        break;
      }
      case ExprKind::UnaryOp: {
        const auto& u = static_cast<const UnaryOp&>(e);
        out += fmt::format(" {}", static_cast<int>(u.op));
        opt(u.operand);
        break;
      }
      case ExprKind::BoolOp: {
        const auto& b = static_cast<const BoolOp&>(e);
        out += b.is_and ? " and" : " or";
        exprs(b.values);
        break;
      }
      case ExprKind::Compare: {
        const auto& c = static_cast<const Compare&>(e);
        opt(c.left);
        for (size_t i = 0; i < c.ops.size(); ++i) {
          out += fmt::format(" {}", static_cast<int>(c.ops[i]));
          loc(c.op_locs[i]);
          opt(c.comparators[i]);
        }
        break;
      }
      case ExprKind::IfExp: {
        const auto& i = static_cast<const IfExp&>(e);
        opt(i.test);
        opt(i.body);
        opt(i.orelse);
        break;
      }
      case ExprKind::Lambda: {
        const auto& l = static_cast<const Lambda&>(e);
        params(l.params);
        opt(l.body);
        break;
      }
      case ExprKind::Starred:
        opt(static_cast<const Starred&>(e).value);
        break;
    }
    out += ")";
  }

  void body(const Body& b) {
    out += " {";
    for (const auto& s : b) stmt(*s);
    out += " }";
  }
  void names(const std::vector<Symbol>& list) {
    for (Symbol s : list) {
      out += " ";
      name(s);
    }
  }
  void aliases(const std::vector<Alias>& list) {
    for (const auto& a : list) {
      out += " (" + a.name + " ";
      name(a.asname);
      out += a.has_asname ? " as" : "";
      loc(a.loc);
      out += ")";
    }
  }

  void stmt(const Stmt& s) {
    out += fmt::format("\n(s{}", static_cast<int>(s.kind));
    loc(s.loc);
    switch (s.kind) {
      case StmtKind::Expr:
        opt(static_cast<const ExprStmt&>(s).value);
        break;
      case StmtKind::Assign: {
        const auto& a = static_cast<const Assign&>(s);
        exprs(a.targets);
        opt(a.value);
        break;
      }
      case StmtKind::AugAssign: {
        const auto& a = static_cast<const AugAssign&>(s);
        out += fmt::format(" {}", static_cast<int>(a.op));
        loc(a.op_loc);
        opt(a.target);
        opt(a.value);
        break;
      }
      case StmtKind::AnnAssign: {
        const auto& a = static_cast<const AnnAssign&>(s);
        opt(a.target);
        opt(a.annotation);
        opt(a.value);
        break;
      }
      case StmtKind::Return:
        opt(static_cast<const Return&>(s).value);
        break;
      case StmtKind::If: {
        const auto& i = static_cast<const If&>(s);
        opt(i.test);
        body(i.body);
        body(i.orelse);
        break;
      }
      case StmtKind::For: {
        const auto& f = static_cast<const For&>(s);
        opt(f.target);
        opt(f.iter);
        body(f.body);
        body(f.orelse);
        break;
      }
      case StmtKind::While: {
        const auto& w = static_cast<const While&>(s);
        opt(w.test);
        body(w.body);
        body(w.orelse);
        break;
      }
      case StmtKind::Break:
      case StmtKind::Continue:
      case StmtKind::Pass:
        break;
      case StmtKind::FunctionDef: {
        const auto& f = static_cast<const FunctionDef&>(s);
        out += " ";
        name(f.name);
        loc(f.name_loc);
        exprs(f.decorators);
        params(f.params);
        opt(f.returns);
        out += " (global";
        names(f.global_names);
        out += ") (nonlocal";
        names(f.nonlocal_names);
        out += ")";
        body(f.body);
        break;
      }
      case StmtKind::ClassDef: {
        const auto& c = static_cast<const ClassDef&>(s);
        out += " ";
        name(c.name);
        exprs(c.decorators);
        args(c.bases);
        body(c.body);
        break;
      }
      case StmtKind::Import:
        aliases(static_cast<const Import&>(s).names);
        break;
      case StmtKind::ImportFrom: {
        const auto& i = static_cast<const ImportFrom&>(s);
        out += fmt::format(" {} {} {}", i.module, i.level, i.star);
        aliases(i.names);
        break;
      }
      case StmtKind::Try: {
        const auto& t = static_cast<const Try&>(s);
        body(t.body);
        for (const auto& h : t.handlers) {
          out += " (except";
          loc(h.loc);
          opt(h.type);
          out += " ";
          name(h.name);
          out += h.has_name ? " as" : "";
          body(h.body);
          out += ")";
        }
        body(t.orelse);
        body(t.finalbody);
        break;
      }
      case StmtKind::Raise: {
        const auto& r = static_cast<const Raise&>(s);
        opt(r.exc);
        opt(r.cause);
        break;
      }
      case StmtKind::With: {
        const auto& w = static_cast<const With&>(s);
        for (const auto& item : w.items) {
          out += " (item";
          opt(item.context);
          opt(item.target);
          out += ")";
        }
        body(w.body);
        break;
      }
      case StmtKind::Assert: {
        const auto& a = static_cast<const Assert&>(s);
        opt(a.test);
        opt(a.msg);
        break;
      }
      case StmtKind::Global:
      case StmtKind::Nonlocal:
        names(static_cast<const NameList&>(s).names);
        break;
      case StmtKind::Delete:
        exprs(static_cast<const Delete&>(s).targets);
        break;
    }
    out += ")";
  }
};

}  // namespace

std::string dump(const Module& module) {
  Dumper d;
  for (const auto& s : module.body) d.stmt(*s);
  return d.out;
}

std::string dump(const Expr& expr) {
  Dumper d;
  d.expr(expr);
  return d.out;
}

}  // namespace tsch::ast
