// The one source of vitsim_test_pch (tests/CMakeLists.txt): the target exists to build the
// precompiled header that every GoogleTest executable reuses; this object is linked nowhere.
