// Lexer for the .tsch language: a subset of Python that reads TVMScript.
// Indentation (INDENT/DEDENT) and newline suppression inside brackets are done by
// TschLexerBase::nextToken() (src/syntax/tsch_lexer_base.cc); this file only defines tokens.
lexer grammar TschLexer;

options { superClass = TschLexerBase; }

tokens { INDENT, DEDENT }

@lexer::header {#include "syntax/tsch_lexer_base.h"}

// Keywords
DEF      : 'def';
RETURN   : 'return';
IF       : 'if';
ELIF     : 'elif';
ELSE     : 'else';
FOR      : 'for';
WHILE    : 'while';
BREAK    : 'break';
CONTINUE : 'continue';
PASS     : 'pass';
IN       : 'in';
NOT      : 'not';
AND      : 'and';
OR       : 'or';
IS       : 'is';
NONE     : 'None';
TRUE     : 'True';
FALSE    : 'False';
IMPORT   : 'import';
FROM     : 'from';
AS       : 'as';
CLASS    : 'class';
TRY      : 'try';
EXCEPT   : 'except';
FINALLY  : 'finally';
RAISE    : 'raise';
WITH     : 'with';
ASSERT   : 'assert';
LAMBDA   : 'lambda';
GLOBAL   : 'global';
NONLOCAL : 'nonlocal';
DEL      : 'del';
YIELD    : 'yield';

// Literals. A string token keeps its prefix and quotes; the AST builder decodes it.
STRING
    : STRING_PREFIX? ( LONG_STRING_DQ | LONG_STRING_SQ | SHORT_STRING_DQ | SHORT_STRING_SQ )
    ;
// A short string that reaches the end of the line without its closing quote.
UNTERMINATED_STRING
    : STRING_PREFIX? ( '"' ( '\\' ~[\r\n] | ~[\\\r\n"] )* | '\'' ( '\\' ~[\r\n] | ~[\\\r\n'] )* )
    ;
NUMBER
    : DEC_INT | HEX_INT | OCT_INT | BIN_INT | FLOAT_NUMBER
    ;

NAME : ID_START ID_CONTINUE* ;

// Operators and delimiters
ELLIPSIS     : '...';
DOT          : '.';
STAR         : '*';
OPEN_PAREN   : '(' ;
CLOSE_PAREN  : ')' ;
COMMA        : ',';
COLON        : ':';
SEMI_COLON   : ';';
POWER        : '**';
ASSIGN       : '=';
OPEN_BRACK   : '[' ;
CLOSE_BRACK  : ']' ;
OR_OP        : '|';
XOR          : '^';
AND_OP       : '&';
LEFT_SHIFT   : '<<';
RIGHT_SHIFT  : '>>';
ADD          : '+';
MINUS        : '-';
DIV          : '/';
MOD          : '%';
IDIV         : '//';
NOT_OP       : '~';
OPEN_BRACE   : '{' ;
CLOSE_BRACE  : '}' ;
LESS_THAN    : '<';
GREATER_THAN : '>';
EQUALS       : '==';
GT_EQ        : '>=';
LT_EQ        : '<=';
NOT_EQ_1     : '<>';
NOT_EQ_2     : '!=';
AT           : '@';
ARROW        : '->';
ADD_ASSIGN   : '+=';
SUB_ASSIGN   : '-=';
MULT_ASSIGN  : '*=';
AT_ASSIGN    : '@=';
DIV_ASSIGN   : '/=';
MOD_ASSIGN   : '%=';
AND_ASSIGN   : '&=';
OR_ASSIGN    : '|=';
XOR_ASSIGN   : '^=';
LEFT_SHIFT_ASSIGN  : '<<=';
RIGHT_SHIFT_ASSIGN : '>>=';
POWER_ASSIGN : '**=';
IDIV_ASSIGN  : '//=';
WALRUS       : ':=';

// A newline carries the indentation of the next line; the base class turns it into
// NEWLINE/INDENT/DEDENT or drops it.
NEWLINE : ( '\r'? '\n' | '\r' | '\f' ) [ \t]* ;

SKIP_ : ( [ \t]+ | COMMENT | LINE_JOINING ) -> skip ;

// Anything else is reported by the base class as an invalid character.
ERROR_CHAR : . ;

fragment COMMENT      : '#' ~[\r\n\f]* ;
fragment LINE_JOINING : '\\' [ \t]* ( '\r'? '\n' | '\r' | '\f' ) ;

fragment STRING_PREFIX : [rRfFbBuU] | [rR][fFbB] | [fFbB][rR] ;
fragment SHORT_STRING_DQ : '"' ( '\\' . | ~[\\\r\n"] )* '"' ;
fragment SHORT_STRING_SQ : '\'' ( '\\' . | ~[\\\r\n'] )* '\'' ;
fragment LONG_STRING_DQ  : '"""' ( '\\' . | . )*? '"""' ;
fragment LONG_STRING_SQ  : '\'\'\'' ( '\\' . | . )*? '\'\'\'' ;

fragment DEC_INT   : [1-9] ( '_'? [0-9] )* | '0'+ ( '_'? '0' )* ;
fragment HEX_INT   : '0' [xX] ( '_'? [0-9a-fA-F] )+ ;
fragment OCT_INT   : '0' [oO] ( '_'? [0-7] )+ ;
fragment BIN_INT   : '0' [bB] ( '_'? [01] )+ ;
fragment DIGITS    : [0-9] ( '_'? [0-9] )* ;
fragment FLOAT_NUMBER
    : ( DIGITS? '.' DIGITS | DIGITS '.' ) EXPONENT?
    | DIGITS EXPONENT
    ;
fragment EXPONENT  : [eE] [+-]? DIGITS ;

fragment ID_START    : [a-zA-Z_] | [\u0080-\uFFFF] ;
fragment ID_CONTINUE : ID_START | [0-9] ;
