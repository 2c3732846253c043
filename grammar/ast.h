#ifndef MBD_AST_H
#define MBD_AST_H
#endif
