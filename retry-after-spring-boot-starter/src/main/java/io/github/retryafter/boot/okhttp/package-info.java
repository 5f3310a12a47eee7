/**
 * The starter's engine under OkHttp clients: one {@code RetryAfterInterceptor} over the starter's providers, applied to
 * the application's {@code OkHttpClient.Builder} beans and to any builder it hands over, optionally pinned to one
 * provider.
 */
package io.github.retryafter.boot.okhttp;
