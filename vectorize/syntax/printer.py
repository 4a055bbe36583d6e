"""Printing trees: `code`, libcst's code generation, faster.

libcst prints a node through `CSTNode._codegen`, which costs two context managers (a generator
each) per expression and a few method calls per node, for a text that is just the node's
tokens and whitespace in order. `code` prints the node kinds generated code is made of (simple
statements, blocks, `if`/`with`/loops, names, numbers, strings, operators, calls, attributes,
subscripts, tuples, conditional expressions) by transcribing their `_codegen_impl` below, and
hands every other node (with what it needs: indentation, default commas) to libcst itself, on
the same state. The text is therefore libcst's, token for token (`tests/test_printer.py`
compares the two on every file of the project).
"""

from __future__ import annotations

import contextlib

import libcst as cst
from libcst._nodes.internal import CodegenState

from .edit import AUGMENTED_TO_BINARY, BINARY_PRECEDENCE

_EMPTY_MODULE = cst.Module(body=[])


class _State(CodegenState):
    """libcst's printing state, without the syntactic positions nothing here asks for."""

    __slots__ = ()

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _NO_POSITION


_NO_POSITION = contextlib.nullcontext()


def code(node: cst.CSTNode, module: cst.Module = _EMPTY_MODULE) -> str:
    """``module.code_for_node(node)``: the node's source text with the module's indentation
    and newline (the default ones unless given); ``code(m, m)`` is ``m.code``."""
    state = _State(default_indent=module.default_indent, default_newline=module.default_newline)
    _print(node, state)
    return "".join(state.tokens)


def _print(node, state) -> None:
    printer = _PRINTERS.get(type(node))
    if printer is None:
        node._codegen(state)
    else:
        printer(node, state)


def _space(ws, state) -> None:
    if type(ws) is cst.SimpleWhitespace:
        state.tokens.append(ws.value)
    else:
        ws._codegen(state)


def _open(node, state) -> None:
    for lpar in node.lpar:
        state.tokens.append("(")
        _space(lpar.whitespace_after, state)


def _close(node, state) -> None:
    for rpar in node.rpar:
        _space(rpar.whitespace_before, state)
        state.tokens.append(")")


def _atom(node, state) -> None:       # Name, Integer, Float, Imaginary, SimpleString
    if node.lpar:
        _open(node, state)
        state.tokens.append(node.value)
        _close(node, state)
    else:
        state.tokens.append(node.value)


def _one_token_op(op, state) -> None:   # binary, boolean and comparison operators, `=`, `.`
    _space(op.whitespace_before, state)
    state.tokens.append(_OP_TOKENS[type(op)])
    _space(op.whitespace_after, state)


def _unary_op(op, state) -> None:
    state.tokens.append(_OP_TOKENS[type(op)])
    _space(op.whitespace_after, state)


def _binary(node, state) -> None:      # BinaryOperation, BooleanOperation
    _open(node, state)
    _print(node.left, state)
    _print(node.operator, state)
    _print(node.right, state)
    _close(node, state)


def _unary(node, state) -> None:
    _open(node, state)
    _print(node.operator, state)
    _print(node.expression, state)
    _close(node, state)


def _comparison(node, state) -> None:
    _open(node, state)
    _print(node.left, state)
    for target in node.comparisons:
        _print(target.operator, state)
        _print(target.comparator, state)
    _close(node, state)


def _attribute(node, state) -> None:
    _open(node, state)
    _print(node.value, state)
    _print(node.dot, state)
    _print(node.attr, state)
    _close(node, state)


def _if_exp(node, state) -> None:
    tokens = state.tokens
    _open(node, state)
    _print(node.body, state)
    _space(node.whitespace_before_if, state)
    tokens.append("if")
    _space(node.whitespace_after_if, state)
    _print(node.test, state)
    _space(node.whitespace_before_else, state)
    tokens.append("else")
    _space(node.whitespace_after_else, state)
    _print(node.orelse, state)
    _close(node, state)


def _comma(node, state, default_comma: bool, default_text: str = ", ") -> None:
    comma = node.comma
    if comma is cst.MaybeSentinel.DEFAULT:
        if default_comma:
            state.tokens.append(default_text)
    elif type(comma) is cst.Comma:
        _one_token_op(comma, state)


def _call(node, state) -> None:
    tokens = state.tokens
    _open(node, state)
    _print(node.func, state)
    _space(node.whitespace_after_func, state)
    tokens.append("(")
    _space(node.whitespace_before_args, state)
    last = len(node.args) - 1
    for i, arg in enumerate(node.args):
        tokens.append(arg.star)
        _space(arg.whitespace_after_star, state)
        if arg.keyword is not None:
            _print(arg.keyword, state)
        if arg.equal is cst.MaybeSentinel.DEFAULT and arg.keyword is not None:
            tokens.append(" = ")
        elif type(arg.equal) is cst.AssignEqual:
            _one_token_op(arg.equal, state)
        _print(arg.value, state)
        _comma(arg, state, i != last)
        _space(arg.whitespace_after_arg, state)
    tokens.append(")")
    _close(node, state)


def _subscript(node, state) -> None:
    _open(node, state)
    _print(node.value, state)
    _space(node.whitespace_after_value, state)
    _print(node.lbracket, state)
    last = len(node.slice) - 1
    for i, element in enumerate(node.slice):
        if type(element.slice) is cst.Index and element.slice.star is None:
            _print(element.slice.value, state)
        else:
            _print(element.slice, state)
        _comma(element, state, i != last)
    _print(node.rbracket, state)
    _close(node, state)


def _tuple(node, state) -> None:
    _open(node, state)
    elements = node.elements
    last = len(elements) - 1
    for i, element in enumerate(elements):
        # one element: `x,`; more: `x, y`
        default_comma, text = (True, ",") if last == 0 else (i < last, ", ")
        if type(element) is cst.Element:
            _print(element.value, state)
            _comma(element, state, default_comma, text)
        else:
            element._codegen(state, default_comma=default_comma,
                             default_comma_whitespace=last != 0)
    _close(node, state)


# simple statements: the statement, then its `;` (a default one between statements)

def _semicolon(node, state, default_semicolon: bool) -> None:
    semicolon = node.semicolon
    if semicolon is cst.MaybeSentinel.DEFAULT:
        if default_semicolon:
            state.tokens.append("; ")
    elif type(semicolon) is cst.Semicolon:
        _one_token_op(semicolon, state)


def _assign(node, state, default_semicolon: bool) -> None:
    for target in node.targets:
        _print(target.target, state)
        _space(target.whitespace_before_equal, state)
        state.tokens.append("=")
        _space(target.whitespace_after_equal, state)
    _print(node.value, state)
    _semicolon(node, state, default_semicolon)


def _aug_assign(node, state, default_semicolon: bool) -> None:
    _print(node.target, state)
    _print(node.operator, state)
    _print(node.value, state)
    _semicolon(node, state, default_semicolon)


def _return(node, state, default_semicolon: bool) -> None:
    state.tokens.append("return")
    ws, value = node.whitespace_after_return, node.value
    if ws is cst.MaybeSentinel.DEFAULT:
        if value is not None:
            state.tokens.append(" ")
    else:
        _space(ws, state)
    if value is not None:
        _print(value, state)
    _semicolon(node, state, default_semicolon)


def _expr_statement(node, state, default_semicolon: bool) -> None:
    _print(node.value, state)
    _semicolon(node, state, default_semicolon)


def _keyword_statement(node, state, default_semicolon: bool) -> None:   # pass, break...
    state.tokens.append(_KEYWORDS[type(node)])
    _semicolon(node, state, default_semicolon)


def _simple_line(node, state) -> None:
    for line in node.leading_lines:
        _print(line, state)
    state.tokens.extend(state.indent_tokens)
    body = node.body
    if not body:
        state.tokens.append("pass")
    last = len(body) - 1
    for i, small in enumerate(body):
        printer = _SMALL_PRINTERS.get(type(small))
        if printer is None:
            small._codegen(state, default_semicolon=i != last)
        else:
            printer(small, state, i != last)
    _print(node.trailing_whitespace, state)


def _trailing_whitespace(node, state) -> None:
    _space(node.whitespace, state)
    if node.comment is not None:
        state.tokens.append(node.comment.value)
    newline = node.newline.value
    state.tokens.append(state.default_newline if newline is None else newline)


def _empty_line(node, state) -> None:
    if node.indent:
        state.tokens.extend(state.indent_tokens)
    _trailing_whitespace(node, state)


def _indented_block(node, state) -> None:
    _print(node.header, state)
    state.indent_tokens.append(state.default_indent if node.indent is None else node.indent)
    if node.body:
        for stmt in node.body:
            _print(stmt, state)
    else:
        state.tokens.extend(state.indent_tokens)
        state.tokens += ["pass", state.default_newline]
    for line in node.footer:
        _print(line, state)
    state.indent_tokens.pop()


def _statement_start(node, state) -> None:
    for line in node.leading_lines:
        _print(line, state)
    state.tokens.extend(state.indent_tokens)


def _clause_end(node, state) -> None:
    _space(node.whitespace_before_colon, state)
    state.tokens.append(":")
    _print(node.body, state)


def _function_def(node, state) -> None:
    tokens = state.tokens
    for line in node.leading_lines:
        _print(line, state)
    for decorator in node.decorators:
        _print(decorator, state)
    for line in node.lines_after_decorators:
        _print(line, state)
    tokens.extend(state.indent_tokens)
    if node.asynchronous is not None:
        _print(node.asynchronous, state)
    tokens.append("def")
    _space(node.whitespace_after_def, state)
    _print(node.name, state)
    _space(node.whitespace_after_name, state)
    if node.type_parameters is not None:
        _print(node.type_parameters, state)
    _space(node.whitespace_after_type_parameters, state)
    tokens.append("(")
    _space(node.whitespace_before_params, state)
    _print(node.params, state)
    tokens.append(")")
    if node.returns is not None:
        node.returns._codegen(state, default_indicator="->")
    _clause_end(node, state)


def _if(node, state, is_elif: bool = False) -> None:
    _statement_start(node, state)
    state.tokens.append("elif" if is_elif else "if")
    _space(node.whitespace_before_test, state)
    _print(node.test, state)
    _space(node.whitespace_after_test, state)
    state.tokens.append(":")
    _print(node.body, state)
    if type(node.orelse) is cst.If:
        _if(node.orelse, state, is_elif=True)
    elif node.orelse is not None:
        _print(node.orelse, state)


def _else(node, state) -> None:
    _statement_start(node, state)
    state.tokens.append("else")
    _clause_end(node, state)


def _while(node, state) -> None:
    _statement_start(node, state)
    state.tokens.append("while")
    _space(node.whitespace_after_while, state)
    _print(node.test, state)
    _clause_end(node, state)
    if node.orelse is not None:
        _print(node.orelse, state)


def _for(node, state) -> None:
    _statement_start(node, state)
    if node.asynchronous is not None:
        _print(node.asynchronous, state)
    state.tokens.append("for")
    _space(node.whitespace_after_for, state)
    _print(node.target, state)
    _space(node.whitespace_before_in, state)
    state.tokens.append("in")
    _space(node.whitespace_after_in, state)
    _print(node.iter, state)
    _clause_end(node, state)
    if node.orelse is not None:
        _print(node.orelse, state)


def _with(node, state) -> None:
    tokens = state.tokens
    _statement_start(node, state)
    # items split over lines need parentheses around them
    needs_paren = any(
        type(item.comma) is cst.Comma and type(item.comma.whitespace_after) in (
            cst.EmptyLine, cst.TrailingWhitespace, cst.ParenthesizedWhitespace)
        for item in node.items)
    if node.asynchronous is not None:
        _print(node.asynchronous, state)
    tokens.append("with")
    _space(node.whitespace_after_with, state)
    if type(node.lpar) is cst.LeftParen:
        _print(node.lpar, state)
    elif needs_paren:
        tokens.append("(")
    last = len(node.items) - 1
    for i, item in enumerate(node.items):
        _print(item.item, state)
        if item.asname is not None:
            _print(item.asname, state)
        _comma(item, state, i != last)
    if type(node.rpar) is cst.RightParen:
        _print(node.rpar, state)
    elif needs_paren:
        tokens.append(")")
    _clause_end(node, state)


def _module(node, state) -> None:
    for part in (*node.header, *node.body, *node.footer):
        _print(part, state)
    if node.has_trailing_newline:
        if not state.tokens:
            state.tokens.append(state.default_newline)
    elif state.tokens:
        state.tokens.pop()


_ONE_TOKEN_OPS = (*BINARY_PRECEDENCE, cst.And, cst.Or, cst.LessThan, cst.LessThanEqual,
                  cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual, cst.In,
                  cst.Is, *AUGMENTED_TO_BINARY, cst.AssignEqual, cst.Dot, cst.Comma, cst.Colon,
                  cst.Semicolon)
_UNARY_OPS = (cst.Minus, cst.Plus, cst.BitInvert, cst.Not)
_OP_TOKENS = {kind: kind()._get_token() for kind in (*_ONE_TOKEN_OPS, *_UNARY_OPS)}
_KEYWORDS = {cst.Pass: "pass", cst.Break: "break", cst.Continue: "continue"}
_SMALL_PRINTERS = {cst.Assign: _assign, cst.AugAssign: _aug_assign, cst.Return: _return,
                   cst.Expr: _expr_statement, **dict.fromkeys(_KEYWORDS, _keyword_statement)}
_PRINTERS = {
    **dict.fromkeys((cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString), _atom),
    **dict.fromkeys(_ONE_TOKEN_OPS, _one_token_op), **dict.fromkeys(_UNARY_OPS, _unary_op),
    cst.BinaryOperation: _binary, cst.BooleanOperation: _binary, cst.UnaryOperation: _unary,
    cst.Comparison: _comparison, cst.Attribute: _attribute, cst.IfExp: _if_exp,
    cst.Call: _call, cst.Subscript: _subscript, cst.Tuple: _tuple,
    cst.SimpleStatementLine: _simple_line, cst.TrailingWhitespace: _trailing_whitespace,
    cst.EmptyLine: _empty_line, cst.IndentedBlock: _indented_block,
    cst.FunctionDef: _function_def, cst.If: _if, cst.Else: _else, cst.While: _while,
    cst.For: _for, cst.With: _with, cst.Module: _module,
}
