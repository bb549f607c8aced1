// Parser for the .tsch language. Factored the way CPython's grammar is, so that ANTLR's
// prediction never scans a whole target list to pick an alternative (TOOLCHAIN.md, parse speed).
parser grammar TschParser;

options { tokenVocab = TschLexer; }

// The expression rules that recurse without a bracket (unary operators, `**`, `not`,
// conditional expressions, lambdas) check the stack left before each level: a chain of
// millions of operators is a SyntaxError, not a stack overflow (syntax/parse_guard.h).
@parser::header {
#include "syntax/parse_guard.h"
}

file_input : ( NEWLINE | stmt )* EOF ;

// One expression (f-string replacement fields).
eval_input : testlist NEWLINE* EOF ;

stmt : simple_stmts | compound_stmt ;

simple_stmts : simple_stmt ( SEMI_COLON simple_stmt )* SEMI_COLON? NEWLINE ;

simple_stmt
    : expr_stmt
    | PASS
    | BREAK
    | CONTINUE
    | return_stmt
    | raise_stmt
    | global_stmt
    | nonlocal_stmt
    | del_stmt
    | import_name
    | import_from
    | assert_stmt
    ;

expr_stmt
    : testlist_star_expr ( annassign | augassign testlist | ( ASSIGN testlist_star_expr )+ )?
    ;
annassign : COLON test ( ASSIGN testlist_star_expr )? ;
augassign
    : ADD_ASSIGN | SUB_ASSIGN | MULT_ASSIGN | AT_ASSIGN | DIV_ASSIGN | MOD_ASSIGN
    | AND_ASSIGN | OR_ASSIGN | XOR_ASSIGN | LEFT_SHIFT_ASSIGN | RIGHT_SHIFT_ASSIGN
    | POWER_ASSIGN | IDIV_ASSIGN
    ;

return_stmt   : RETURN testlist_star_expr? ;
raise_stmt    : RAISE ( test ( FROM test )? )? ;
global_stmt   : GLOBAL NAME ( COMMA NAME )* ;
nonlocal_stmt : NONLOCAL NAME ( COMMA NAME )* ;
del_stmt      : DEL exprlist ;
assert_stmt   : ASSERT test ( COMMA test )? ;

import_name     : IMPORT dotted_as_name ( COMMA dotted_as_name )* ;
dotted_as_name  : dotted_name ( AS NAME )? ;
import_from
    : FROM ( DOT | ELLIPSIS )* dotted_name IMPORT import_targets
    | FROM ( DOT | ELLIPSIS )+ IMPORT import_targets
    ;
import_targets
    : STAR
    | OPEN_PAREN import_as_name ( COMMA import_as_name )* COMMA? CLOSE_PAREN
    | import_as_name ( COMMA import_as_name )*
    ;
import_as_name : NAME ( AS NAME )? ;
dotted_name    : NAME ( DOT NAME )* ;

compound_stmt
    : if_stmt
    | while_stmt
    | for_stmt
    | try_stmt
    | with_stmt
    | funcdef
    | classdef
    | decorated
    ;

if_stmt    : IF test COLON suite ( ELIF test COLON suite )* ( ELSE COLON suite )? ;
while_stmt : WHILE test COLON suite ( ELSE COLON suite )? ;
for_stmt   : FOR exprlist IN testlist COLON suite ( ELSE COLON suite )? ;
try_stmt
    : TRY COLON suite
      ( ( except_clause COLON suite )+ ( ELSE COLON suite )? ( FINALLY COLON suite )?
      | FINALLY COLON suite
      )
    ;
except_clause : EXCEPT ( test ( AS NAME )? )? ;
with_stmt     : WITH with_item ( COMMA with_item )* COLON suite ;
with_item     : test ( AS expr )? ;

decorated : decorator+ ( classdef | funcdef ) ;
decorator : AT test NEWLINE ;

funcdef    : DEF NAME parameters ( ARROW test )? COLON suite ;
parameters : OPEN_PAREN param_list? CLOSE_PAREN ;
param_list : param ( COMMA param )* COMMA? ;
param
    : NAME ( COLON test )? ( ASSIGN test )?
    | STAR ( NAME ( COLON test )? )?
    | POWER NAME ( COLON test )?
    | DIV
    ;

classdef : CLASS NAME ( OPEN_PAREN arglist? CLOSE_PAREN )? COLON suite ;

suite : simple_stmts | NEWLINE INDENT stmt+ DEDENT ;

// ---- expressions ----
test
@init { tsch::guard_parse_depth(getCurrentToken()); }
    : logical ( IF logical ELSE test )?
    | lambdef
    ;
test_nocond : logical | lambdef_nocond ;
lambdef        : LAMBDA lambda_params? COLON test ;
lambdef_nocond : LAMBDA lambda_params? COLON test_nocond ;
lambda_params  : lambda_param ( COMMA lambda_param )* COMMA? ;
lambda_param
    : NAME ( ASSIGN test )?
    | STAR NAME?
    | POWER NAME
    ;

// Comparisons and boolean operators as one precedence-climbing rule over `expr` operands
// (like `expr` below, this keeps the parse tree shallow). A chain `a < b < c` parses
// left-nested and the AST builder flattens it into one comparison.
logical
@init { tsch::guard_parse_depth(getCurrentToken()); }
    : expr
    | logical comp_op expr
    | NOT logical
    | logical AND logical
    | logical OR logical
    ;
comp_op
    : LESS_THAN | GREATER_THAN | EQUALS | GT_EQ | LT_EQ | NOT_EQ_1 | NOT_EQ_2
    | IN | NOT IN | IS | IS NOT
    ;
star_expr  : STAR expr ;
// Arithmetic and bitwise operators as one left-recursive rule: ANTLR turns it into
// precedence climbing, so an operand costs a couple of contexts instead of eight levels.
// Earlier alternatives bind tighter; `**` is right-associative and binds tighter than a
// unary minus on its left (-2 ** 2 == -(2 ** 2)) but takes one on its right (2 ** -1).
expr
@init { tsch::guard_parse_depth(getCurrentToken()); }
    : atom_expr
    | <assoc=right> expr POWER expr
    | ( ADD | MINUS | NOT_OP ) expr
    | expr ( STAR | AT | DIV | MOD | IDIV ) expr
    | expr ( ADD | MINUS ) expr
    | expr ( LEFT_SHIFT | RIGHT_SHIFT ) expr
    | expr AND_OP expr
    | expr XOR expr
    | expr OR_OP expr
    ;
atom_expr  : atom trailer* ;
atom
    : OPEN_PAREN testlist_comp? CLOSE_PAREN
    | OPEN_BRACK testlist_comp? CLOSE_BRACK
    | OPEN_BRACE dictorsetmaker? CLOSE_BRACE
    | NAME
    | NUMBER
    | STRING+
    | ELLIPSIS
    | NONE
    | TRUE
    | FALSE
    ;
testlist_comp : ( test | star_expr ) ( comp_for | ( COMMA ( test | star_expr ) )* COMMA? ) ;
trailer
    : OPEN_PAREN arglist? CLOSE_PAREN
    | OPEN_BRACK subscriptlist CLOSE_BRACK
    | DOT NAME
    ;
subscriptlist : subscript ( COMMA subscript )* COMMA? ;
// Left-factored: a plain index is decided after its test, not by scanning it for a colon.
subscript     : test ( COLON test? ( COLON test? )? )? | COLON test? ( COLON test? )? ;
exprlist      : ( expr | star_expr ) ( COMMA ( expr | star_expr ) )* COMMA? ;
testlist      : test ( COMMA test )* COMMA? ;
testlist_star_expr : ( test | star_expr ) ( COMMA ( test | star_expr ) )* COMMA? ;
dictorsetmaker
    : dict_item ( comp_for | ( COMMA dict_item )* COMMA? )
    | ( test | star_expr ) ( comp_for | ( COMMA ( test | star_expr ) )* COMMA? )
    ;
dict_item : test COLON test | POWER expr ;

arglist  : argument ( COMMA argument )* COMMA? ;
argument
    : test comp_for?
    | NAME ASSIGN test
    | POWER test
    | STAR test
    ;

comp_for  : FOR exprlist IN logical comp_iter? ;
comp_iter : comp_for | comp_if ;
comp_if   : IF test_nocond comp_iter? ;
