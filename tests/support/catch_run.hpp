// The tests' Catch2 session (catch_impl.cpp): runs the tests argv selects.
#pragma once

int catch_run(int argc, char** argv);
