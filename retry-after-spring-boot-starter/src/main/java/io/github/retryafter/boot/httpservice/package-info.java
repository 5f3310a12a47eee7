/**
 * Spring's HTTP service clients ({@code @ImportHttpServices}): each group's client is given the provider its group
 * maps to, on the {@code RestClient} and the {@code WebClient} side alike.
 */
package io.github.retryafter.boot.httpservice;
