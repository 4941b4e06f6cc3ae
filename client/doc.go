// Package client is the Go SDK for the Tradewind Partner Integration API: it holds what a
// partner's own Go code imports, starting with the verification of webhook deliveries
// (SignWebhook, VerifyWebhook, ParseWebhook).
package client
