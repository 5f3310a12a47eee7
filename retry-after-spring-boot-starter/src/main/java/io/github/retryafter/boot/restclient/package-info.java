/**
 * The RestClient {@code ClientHttpRequestInterceptor} that drives the retry engine, blocking.
 */
package io.github.retryafter.boot.restclient;
