/**
 * A transport adapter for OkHttp: {@link io.github.retryafter.okhttp.RetryAfterInterceptor} is an application
 * interceptor that supplies how to send one attempt ({@code chain.proceed}) and the core's
 * {@link io.github.retryafter.engine.RetryLoop} does the rest. OkHttp itself is the application's dependency.
 */
package io.github.retryafter.okhttp;
