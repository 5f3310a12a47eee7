/**
 * The front half every transport adapter shares: which provider a request belongs to
 * ({@link io.github.retryafter.request.ProviderRoutes}), and the operation it starts there, with its idempotency key
 * and keyed-jitter identity ({@link io.github.retryafter.request.RequestPreparer}). Used alike by the JDK
 * {@code HttpClient} adapter and the Spring Boot starter's RestClient and WebClient adapters. No I/O.
 */
package io.github.retryafter.request;
