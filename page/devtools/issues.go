package devtools

// Browser issues (Audits.issueAdded) as DevTools names and groups them, for
// the console listing.

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/tabhive/tabhive/collectors"
	"github.com/tabhive/tabhive/internal/jsfmt"
)

// issueEvents converts one CDP inspector issue into the issues DevTools
// makes of it: usually one, several for a cookie issue with several reasons,
// none for one DevTools hides.
func (sl *Slice) issueEvents(code string, details json.RawMessage) []collectors.IssueEvent {
	var d struct {
		ErrorType        string `json:"errorType"`
		Type             string `json:"type"`
		ViolationType    string `json:"contentSecurityPolicyViolationType"`
		StyleSheetReason string `json:"styleSheetLoadingIssueReason"`
		ElementReason    string `json:"elementAccessibilityIssueReason"`
		PropertyReason   string `json:"propertyRuleIssueReason"`
		CorsErrorStatus  struct {
			CorsError string `json:"corsError"`
		} `json:"corsErrorStatus"`
		ExclusionReasons []string `json:"cookieExclusionReasons"`
		WarningReasons   []string `json:"cookieWarningReasons"`
		Operation        string   `json:"operation"`
		Request          *struct {
			RequestID string `json:"requestId"`
			URL       string `json:"url"`
		} `json:"request"`
	}
	if err := json.Unmarshal(details, &d); err != nil {
		return nil
	}
	var codes []string
	switch code {
	case "GenericIssue":
		codes = []string{code + "::" + d.ErrorType}
	case "DeprecationIssue":
		codes = []string{code + "::" + d.Type}
	case "ContentSecurityPolicyIssue":
		codes = []string{code + "::" + d.ViolationType}
	case "StylesheetLoadingIssue":
		codes = []string{code + "::" + d.StyleSheetReason}
	case "ElementAccessibilityIssue":
		codes = []string{code + "::" + d.ElementReason}
	case "PropertyRuleIssue":
		codes = []string{code + "::" + d.PropertyReason}
	case "CorsIssue":
		codes = []string{"CorsIssue::" + corsIssueKind(d.CorsErrorStatus.CorsError)}
	case "CookieIssue":
		codes = cookieIssueCodes(d.ExclusionReasons, d.WarningReasons, d.Operation)
	default:
		codes = []string{code}
	}

	// The affected resource, as chrome-devtools-mcp shows it: the request
	// by reqid if it is collected, else by URL, then the details less the
	// fields that are noise to an agent.
	line := ""
	dropRequestID := false
	if d.Request != nil {
		if r, ok := sl.network.ByRequestID(d.Request.RequestID); ok && d.Request.RequestID != "" {
			line = "reqid=" + strconv.Itoa(r.ID) + " "
			dropRequestID = true
		} else {
			line = "url=" + d.Request.URL + " "
		}
	}
	line += "data=" + jsfmt.Stringify(details, func(path []string) bool {
		switch {
		case len(path) == 1:
			return path[0] == "errorType" || path[0] == "frameId"
		case len(path) == 2 && path[0] == "request":
			return dropRequestID && path[1] == "requestId"
		}
		return false
	})

	key := jsfmt.Stringify(details, nil)
	out := make([]collectors.IssueEvent, 0, len(codes))
	for _, c := range codes {
		title, ok := collectors.IssueTitle(c)
		if !ok {
			title = c
		}
		out = append(out, collectors.IssueEvent{Code: c, Key: key, Title: title, Details: line})
	}
	return out
}

// corsIssueKind maps a CDP CorsError to the CORS issue kind DevTools describes
// it under.
func corsIssueKind(e string) string {
	switch e {
	case "InvalidAllowMethodsPreflightResponse", "InvalidAllowHeadersPreflightResponse",
		"PreflightMissingAllowOriginHeader", "PreflightMultipleAllowOriginValues",
		"PreflightInvalidAllowOriginValue", "MissingAllowOriginHeader",
		"MultipleAllowOriginValues", "InvalidAllowOriginValue":
		return "InvalidHeaders"
	case "PreflightWildcardOriginNotAllowed", "WildcardOriginNotAllowed":
		return "WildcardOriginWithCredentials"
	case "PreflightInvalidStatus", "PreflightDisallowedRedirect", "InvalidResponse":
		return "PreflightResponseInvalid"
	case "AllowOriginMismatch", "PreflightAllowOriginMismatch":
		return "OriginMismatch"
	case "InvalidAllowCredentials", "PreflightInvalidAllowCredentials":
		return "AllowCredentialsRequired"
	}
	return e
}

// cookieIssueCodes splits a cookie issue by reason as DevTools does, leaving
// out those DevTools does not show (third-party cookie phase-out, same-site
// exclusions without a redirect downgrade).
func cookieIssueCodes(exclusions, warnings []string, operation string) []string {
	var codes []string
	add := func(reason string, warnings []string) {
		switch reason {
		case "ExcludeSameSiteStrict", "ExcludeSameSiteLax", "ExcludeSameSiteUnspecifiedTreatedAsLax":
			if slices.Contains(warnings, "WarnCrossSiteRedirectDowngradeChangesInclusion") {
				codes = append(codes, "CookieIssue::CrossSiteRedirectDowngradeChangesInclusion")
			} else if reason == "ExcludeSameSiteUnspecifiedTreatedAsLax" {
				codes = append(codes, "CookieIssue::"+reason+"::"+operation)
			}
		case "ExcludePortMismatch", "ExcludeSchemeMismatch":
			codes = append(codes, "CookieIssue::"+reason)
		case "WarnThirdPartyPhaseout", "ExcludeThirdPartyPhaseout":
		default:
			codes = append(codes, "CookieIssue::"+reason+"::"+operation)
		}
	}
	if len(exclusions) > 0 {
		for _, r := range exclusions {
			add(r, warnings)
		}
		return codes
	}
	for _, r := range warnings {
		add(r, nil)
	}
	return codes
}
