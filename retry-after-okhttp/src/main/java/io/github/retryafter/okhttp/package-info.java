/**
 * A transport adapter for OkHttp: {@link io.github.retryafter.okhttp.RetryAfterInterceptor} is an application
 * interceptor that supplies how to send one attempt ({@code chain.proceed}) and the core's
 * {@link io.github.retryafter.engine.RetryLoop} does the rest, from the first retry, failure or hold on (a first
 * attempt the engine stops on at once is sent and reported without it). OkHttp itself is the application's
 * dependency: 4.12 or 5.
 */
package io.github.retryafter.okhttp;
