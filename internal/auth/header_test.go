package auth

import "testing"

func TestBearerToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header string
		want   string
		ok     bool
	}{
		{"Bearer abc.def.ghi", "abc.def.ghi", true},
		{"bearer abc", "abc", true},
		{"BEARER abc", "abc", true},
		{"  Bearer   abc  ", "abc", true},
		{"Bearer\tabc", "abc", true},
		{"", "", false},
		{"Bearer", "", false},
		{"Bearer ", "", false},
		{"Bearerabc", "", false},
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearer abc def", "", false},
		{"abc.def.ghi", "", false},
	} {
		got, ok := BearerToken(tc.header)
		if got != tc.want || ok != tc.ok {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWebSocketToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		protocols []string
		want      string
		ok        bool
	}{
		{"canton style", []string{"jwt.token.abc.def.ghi", "daml.ws.auth"}, "abc.def.ghi", true},
		{"auth protocol first", []string{"daml.ws.auth", "jwt.token.abc"}, "abc", true},
		{"one header with a list", []string{"daml.ws.auth, jwt.token.abc"}, "abc", true},
		{"first wins", []string{"jwt.token.one", "jwt.token.two"}, "one", true},
		{"none", []string{"daml.ws.auth"}, "", false},
		{"nil", nil, "", false},
		{"empty token", []string{"jwt.token."}, "", false},
		{"prefix is case-sensitive", []string{"JWT.TOKEN.abc"}, "", false},
	} {
		got, ok := WebSocketToken(tc.protocols)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: WebSocketToken(%q) = %q, %v; want %q, %v", tc.name, tc.protocols, got, ok, tc.want, tc.ok)
		}
	}
}
