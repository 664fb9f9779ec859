import gleam/option.{None, Some}
import gleam/string
import mcp/name

pub fn unchanged_names_stay_test() {
  let assert "add" = name.mangle("add")
  let assert "count" = name.mangle_label("count")
}

pub fn changed_names_carry_a_digest_test() {
  let mangled = name.mangle("createIssue")
  let assert True = string.starts_with(mangled, "create_issue_")
  let assert True = string.length(mangled) == string.length("create_issue_") + 8
  let assert True = mangled != name.mangle("create_issue")
}

pub fn length_cap_test() {
  let assert 32 = name.max_name_chars()
  let long = string.repeat("a", 40)
  let assert True =
    string.length(name.mangle(long)) == name.max_name_chars() + 1 + 8
  let assert True =
    name.mangle(string.repeat("a", 32)) == string.repeat("a", 32)
}

pub fn first_collision_test() {
  let assert Some(#("x", "x")) = name.first_collision(["x", "y", "x"])
  let assert None = name.first_collision(["x", "y"])
  let assert True = name.dirty_threshold() > 0
}
