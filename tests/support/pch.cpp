// The translation unit that compiles the test suite's precompiled header
// (tests/CMakeLists.txt, strata_test_pch): the heavy third-party headers
// every test includes, parsed once instead of once per test source.
