"""libcst helpers shared by the passes, the rules and the printer, one module per concern:

- `templates`: code from text (``expr("np.where({c}, {a}, {b})", c=..., a=..., b=...)``,
  `parse_expr`, `name`, `call`) and the text of a node (`render`, `bare_code`);
- `traversal`: the per-transform memo (`memoized`), children and walks (`children`, `walk`,
  `statements`) and the fast transformer driver `rewrite`;
- `edit`: parentheses by precedence (`fix_parens`), `with_changes`/`with_body`, and the small
  rewrites several passes share (`AugmentedToAssignment`, `RenameNames`, `hoist_common_tail`);
- `printer`: `code`, libcst's code generation, faster.

Import from the module that owns a name (nothing is re-exported here).
"""
