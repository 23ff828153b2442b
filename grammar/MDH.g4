// MDH.g4 — grammar of the .mdh language (ANTLR 4.7).
//
// Invariants kept here:
//  * Only a small set of words is reserved (see KEYWORDS below); the composition
//    operator `o`, the combine-operator builders `pw`/`ps`, the meta-parameter
//    kinds `type`/`size` and every scalar type name are ordinary identifiers that
//    the AST builder / sema interpret by position, so users may name things `o`,
//    `size` or `ps`.
//  * The lexer never fails: any stray character becomes an ERROR_CHAR token that
//    the parser reports with a position, and an unterminated block comment
//    becomes one UNTERMINATED_COMMENT token.
//  * Comments travel on the HIDDEN channel so that the AST builder can
//    attach doc comments and the formatter can keep every comment.
grammar MDH;

module : topLevel* EOF ;

topLevel
    : importDecl
    | decl
    ;

importDecl : 'import' ident ('.' ident)* ';' ;

decl
    : attribute* fnDecl          # fnTop
    | recordDecl                 # recordTop
    | combineDecl                # combineTop
    | viewDecl                   # viewTop
    | mdhDecl                    # mdhTop
    ;

attribute : '@' ident ;

// ---- meta-parameters ------------------------------------------------------
metaParams : '<' (metaParam (',' metaParam)*)? '>' ;
metaParam  : ident ':' ident ;                  // kind is `type` or `size`
// The `=` after a declaration's name and meta-parameters.  The lexer makes `>=`
// one token, so `mdh m<N: size>= ...` closes the list and gives the `=` at once
// (as Rust splits `>=` after generics); the builder reads it as `>` `=`.
defineEq
    : '='
    | open='<' (metaParam (',' metaParam)*)? ('>' '=' | '>=')
    ;
metaArgs   : '<' (metaArg (',' metaArg)*)? '>' ;
metaArg
    : '*'                                       # dynamicArg
    | typeRef                                   # typeArg
    | sizeExpr                                  # sizeArg
    ;

// ---- types ------------------------------------------------------------------
typeRef
    : ident                                     # namedType
    | '(' typeRef (',' typeRef)+ ')'            # tupleType
    | '(' ')'                                   # unitType
    ;

// ---- size expressions (meta level) -------------------------------------------
sizeExpr
    : sizeExpr op=('*' | '/' | '%') sizeExpr    # sizeMul
    | sizeExpr op=('+' | '-') sizeExpr          # sizeAdd
    | '(' sizeExpr ')'                          # sizeParen
    | INT                                       # sizeInt
    | ident                                     # sizeName
    ;

// ---- declarations -------------------------------------------------------------
fnDecl
    : 'fn' ident metaParams? '(' (param (',' param)*)? ')' ('->' typeRef)? (block | '=' expr ';')
    ;
param : ident ':' typeRef ;

recordDecl : 'record' ident '{' (field (',' field)* ','?)? '}' ;
field : ident ':' typeRef ;

combineDecl : 'combine' ident defineEq combineOp ';' ;

viewDecl : 'view' ident defineEq stage ';' ;

mdhDecl : 'mdh' ident defineEq stage (composeOp stage)* ';' ;

composeOp
    : '∘'
    | ident                                     // must be `o`; checked by the builder
    ;

stage
    : kind=('inp_view' | 'out_view') metaArgs? '(' (bufferView (',' bufferView)*)? ')'  # viewStage
    | 'md_hom' metaArgs? '(' scalarFnRef ',' '(' (combineOp (',' combineOp)*)? ')' ')'  # mdHomStage
    | ident metaArgs?                                                                  # refStage
    ;

bufferView : ident shapeDecl? ':' indexFn (',' indexFn)* ;
shapeDecl  : '[' (sizeExpr (',' sizeExpr)*)? ']' ;
indexFn    : '(' (ident (',' ident)*)? ')' '->' '(' (expr (',' expr)*)? ')' ;

scalarFnRef
    : ident metaArgs?                           # namedFnRef
    | opSymbol                                  # symbolFnRef
    ;

combineOp
    : '++'                                      # concatOp
    | ident '(' opRef ')'                       # builderOp   // pw(...) or ps(...)
    | opSymbol                                  # symbolOp    // paper spelling: `+` is pw(add)
    | ident metaArgs?                           # namedOp
    ;

opRef
    : opSymbol                                  # symbolOpRef
    | ident metaArgs?                           # namedOpRef
    | '(' opRef (',' opRef)+ ')'                # tupleOpRef
    ;

opSymbol : '+' | '*' | '&' | '|' | '^' | '&&' | '||' ;

// ---- scalar function bodies ---------------------------------------------------------
block : '{' stmt* '}' ;

stmt
    : 'let' mut='mut'? ident (':' typeRef)? '=' expr ';'        # letStmt
    | ident op=('=' | '+=' | '-=' | '*=' | '/=') expr ';'       # assignStmt
    | 'if' '(' expr ')' block ('else' (block | ifTail=stmt))?   # ifStmt
    | 'return' expr ';'                                         # returnStmt
    | block                                                     # blockStmt
    ;

expr
    : expr '.' (ident | INT)                                    # fieldExpr
    | ident '(' (expr (',' expr)*)? ')'                         # callExpr
    | ident '{' (fieldInit (',' fieldInit)* ','?)? '}'          # recordExpr
    | op=('-' | '!' | '~') expr                                 # unaryExpr
    | expr 'as' typeRef                                         # castExpr
    | expr op=('*' | '/' | '%') expr                            # binaryExpr
    | expr op=('+' | '-') expr                                  # binaryExpr
    | expr op=('<<' | '>>') expr                                # binaryExpr
    | expr op=('<' | '<=' | '>' | '>=') expr                    # binaryExpr
    | expr op=('==' | '!=') expr                                # binaryExpr
    | expr op='&' expr                                          # binaryExpr
    | expr op='^' expr                                          # binaryExpr
    | expr op='|' expr                                          # binaryExpr
    | expr op='&&' expr                                         # binaryExpr
    | expr op='||' expr                                         # binaryExpr
    | <assoc=right> expr '?' expr ':' expr                      # condExpr
    | '(' expr ')'                                              # parenExpr
    | '(' expr (',' expr)+ ')'                                  # tupleExpr
    | INT                                                       # intExpr
    | FLOAT                                                     # floatExpr
    | ('true' | 'false')                                        # boolExpr
    | ident                                                     # nameExpr
    ;

fieldInit : ident ':' expr ;

ident : ID ;

// ---- lexer ------------------------------------------------------------------------------
// KEYWORDS: import fn record combine view mdh md_hom inp_view out_view let mut if else return as true false
ARROW_UNICODE : ('↦' | '→') -> type(ARROW_ASCII) ;
ARROW_ASCII   : '->' ;
FLOAT : [0-9]+ '.' [0-9]+ ([eE] [+-]? [0-9]+)? | [0-9]+ [eE] [+-]? [0-9]+ ;
INT   : [0-9]+ ;
ID    : [a-zA-Z_] [a-zA-Z_0-9]* ;

DOC_COMMENT   : '///' ~[\r\n]* -> channel(HIDDEN) ;
LINE_COMMENT  : '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT : '/*' .*? '*/' -> channel(HIDDEN) ;
// Must not contain `*/`: ANTLR takes the longest match, so `'/*' .*? EOF` would
// swallow every block comment and the rest of the file.
UNTERMINATED_COMMENT : '/*' ( ~'*' | '*'+ ~[*/] )* '*'* EOF ;
WS : [ \t\r\n\f]+ -> skip ;
ERROR_CHAR : . ;
