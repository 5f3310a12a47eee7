/**
 * The starter as the one retry layer under Spring AI's model clients: which clients it sits under, the retry count
 * their SDKs keep above it, and the defaults that turn the SDKs' own retries off.
 */
package io.github.retryafter.boot.springai;
