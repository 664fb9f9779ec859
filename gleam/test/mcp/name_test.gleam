import gleam/option.{None, Some}
import gleam/string
import mcp/internal/scheduling
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
}

/// Names of the dirty threshold's size are mangled on a dirty scheduler,
/// with the answer a shorter name gets.
pub fn dirty_threshold_sized_name_test() {
  let long = string.repeat("a", scheduling.name_dirty_threshold())
  let mangled = name.mangle(long)
  let assert True = string.starts_with(mangled, string.repeat("a", 32) <> "_")
  let assert True = string.length(mangled) == name.max_name_chars() + 1 + 8
  let assert True = name.mangle_label(long) == long
  let assert Some(#(a, b)) = name.first_collision([long, long])
  let assert True = a == long && b == long
}
