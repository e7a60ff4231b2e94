# Does a memory rot when the code moves? Its citations are checked every time it is served:
# a rename marks it stale with where git says the code went, and one command turns that into a
# reviewed edit.
source "$DEMO_DIR/lib.sh"

step "Someone renames the checkout package (a normal refactor, committed)"
show git mv src/shop/checkout src/shop/basket
show git commit -qm "refactor: checkout is now the basket package"

step "Lint warns (exit 0: a warning, not a failure; --strict would fail)"
show_status tb lint

step "Agents still get the memory, marked with the reason"
show tb relevant --query "where does checkout live" --k 1

step "One reviewed edit follows the rename (nothing rewritten in place)"
show tb propose --fix-citations --no-push
branch=$(cd "$DEMO_REPO" && git branch --list 'teambrain/fix-citations-*' | tr -d ' *' | head -n 1)
show git diff --stat main "$branch"
