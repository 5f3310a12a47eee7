/**
 * A runnable sample: a simulated provider that answers {@code 429}/{@code 503} with {@code Retry-After}, a client side
 * that calls it through Boot's retrying {@code WebClient} and {@code RestClient}, a scenario runner that fires bursts
 * of operations at it, and a home page that charts what arrived.
 */
package io.github.retryafter.sample;
