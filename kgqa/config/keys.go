package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
)

// CheckKeys refuses a configuration that points a model role at a hosted
// API while the variable its api_key_env names is unset or empty (read
// through getenv; nil reads the process environment): such an API answers
// every call 401, so the run would fail on its first call after loading the
// KG, or worse send questions without a key. An endpoint on this machine
// or a private network (Ollama, vLLM, llama.cpp, a compose service) may
// want no key and is not checked, nor is a role with an api_key set.
func (c *Config) CheckKeys(getenv func(string) (string, bool)) error {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	roles := []struct {
		key                  string
		base, apiKey, keyEnv string
	}{
		{"llm.planner", c.LLM.Planner.BaseURL, c.LLM.Planner.APIKey, c.LLM.Planner.APIKeyEnv},
		{"llm.reasoner", c.LLM.Reasoner.BaseURL, c.LLM.Reasoner.APIKey, c.LLM.Reasoner.APIKeyEnv},
		{"llm.teacher", c.LLM.Teacher.BaseURL, c.LLM.Teacher.APIKey, c.LLM.Teacher.APIKeyEnv},
		{"llm.embeddings", c.LLM.Embeddings.BaseURL, c.LLM.Embeddings.APIKey, c.LLM.Embeddings.APIKeyEnv},
	}
	for _, r := range roles {
		if r.base == "" || r.apiKey != "" || r.keyEnv == "" || !Hosted(r.base) {
			continue
		}
		if v, ok := getenv(r.keyEnv); ok && strings.TrimSpace(v) != "" {
			continue
		}
		return &Error{Key: r.key + ".api_key_env", Reason: fmt.Sprintf(
			"%s is not set, and %s.base_url %s is a hosted API that refuses calls without a key: set %s, or point %s.base_url at a local server",
			r.keyEnv, r.key, r.base, r.keyEnv, r.key)}
	}
	return nil
}

// Hosted reports whether baseURL is a hosted API rather than a server on
// this machine or a private network: its host is a name with a dot (not
// localhost or .local) or a public IP address.
func Hosted(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		return !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsLinkLocalUnicast() && !ip.IsUnspecified()
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case host == "localhost", strings.HasSuffix(host, ".localhost"), strings.HasSuffix(host, ".local"),
		strings.HasSuffix(host, ".internal"), !strings.Contains(host, "."):
		return false
	}
	return true
}
