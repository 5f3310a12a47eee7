/**
 * The WebClient {@code ExchangeFilterFunction} that drives the retry engine without blocking.
 */
package io.github.retryafter.boot.webclient;
