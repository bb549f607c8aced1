# Assertions shared by the shell tests (source it): each counts into $passed / $failed and
# prints what differed. End a test with `report`.
passed=0
failed=0
check() {  # check NAME EXPECTED ACTUAL
  if [ "$2" == "$3" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s\n--- expected\n%s\n--- actual\n%s\n' "$1" "$2" "$3"
  fi
}
contains() {  # contains NAME NEEDLE HAYSTACK
  if [[ "$3" == *"$2"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s: %q not found in\n%s\n' "$1" "$2" "$3"
  fi
}
lacks() {  # lacks NAME NEEDLE HAYSTACK
  if [[ "$3" != *"$2"* ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL %s: %q unexpectedly in\n%s\n' "$1" "$2" "$3"
  fi
}
report() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
