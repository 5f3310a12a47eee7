/**
 * The executable jar's command line: {@code explain} turns a block of response headers into the plan the library
 * would make, as one line of JSON; {@code simulate} runs the deterministic fleet simulation and prints its report.
 */
package io.github.retryafter.cli;
