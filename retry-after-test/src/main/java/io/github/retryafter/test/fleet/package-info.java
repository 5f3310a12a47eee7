/**
 * What every fleet store promises, as tests a store of your own can run: extend
 * {@link io.github.retryafter.test.fleet.FleetStoreContract}. It needs JUnit 5 and AssertJ, which this module declares
 * as optional: add them with test scope, as a project that runs JUnit tests has them already.
 */
package io.github.retryafter.test.fleet;
