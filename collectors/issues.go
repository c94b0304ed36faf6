package collectors

import "strings"

// IssueTitle returns the title chrome-devtools-mcp lists a browser issue
// under, given the code the issue is aggregated by (see
// [Message.IssueCode]), and whether the code is known. The titles are the
// headings of DevTools' issue descriptions for the issues pages commonly
// raise; for other codes the caller shows the code itself.
func IssueTitle(code string) (string, bool) {
	if t, ok := issueTitles[code]; ok {
		return t, true
	}
	if strings.HasPrefix(code, "DeprecationIssue::") {
		return "Deprecated feature used", true
	}
	return "", false
}

// issueTitles maps aggregation codes to titles. A code is the CDP
// InspectorIssueCode, followed for most kinds by "::" and the sub-kind that
// picks DevTools' description (the violation type, error type, reason...).
var issueTitles = map[string]string{
	"QuirksModeIssue":        "Page layout may be unexpected due to Quirks Mode",
	"MixedContentIssue":      "Mixed content: load all resources via HTTPS to improve the security of your site",
	"HeavyAdIssue":           "An ad on your site has exceeded resource limits",
	"SharedArrayBufferIssue": "SharedArrayBuffer usage is restricted to cross-origin isolated sites",
	"LazyLoadImageIssue":     "Lazy-loaded images should have explicit dimensions",
	"BounceTrackingIssue":    "Chrome may soon delete state for intermediate websites in a recent navigation chain",

	"ContentSecurityPolicyIssue::kURLViolation":                "Content Security Policy of your site blocks some resources",
	"ContentSecurityPolicyIssue::kInlineViolation":             "Content Security Policy blocks inline execution of scripts and stylesheets",
	"ContentSecurityPolicyIssue::kEvalViolation":               "Content Security Policy of your site blocks the use of `eval` in JavaScript",
	"ContentSecurityPolicyIssue::kTrustedTypesSinkViolation":   "Trusted Type expected, but got String",
	"ContentSecurityPolicyIssue::kTrustedTypesPolicyViolation": "Trusted Type policy creation blocked by Content Security Policy",

	"CorsIssue::InvalidHeaders":                                                "Ensure CORS response header values are valid",
	"CorsIssue::WildcardOriginWithCredentials":                                 "Ensure credentialed requests aren’t sent to CORS resources with origin wildcards",
	"CorsIssue::PreflightResponseInvalid":                                      "Ensure preflight responses are valid",
	"CorsIssue::OriginMismatch":                                                "Ensure CORS requesting origin matches resource’s allowed origin",
	"CorsIssue::AllowCredentialsRequired":                                      "Ensure CORS requests include credentials only when allowed",
	"CorsIssue::MethodDisallowedByPreflightResponse":                           "Ensure CORS request uses allowed method",
	"CorsIssue::HeaderDisallowedByPreflightResponse":                           "Ensure CORS request includes only allowed headers",
	"CorsIssue::RedirectContainsCredentials":                                   "Ensure CORS requests aren’t redirected to URLs containing credentials",
	"CorsIssue::DisallowedByMode":                                              "Ensure only same-origin resources are fetched with same-origin request mode",
	"CorsIssue::CorsDisabledScheme":                                            "Ensure CORS requests are made on supported schemes",
	"CorsIssue::NoCorsRedirectModeNotFollow":                                   "Ensure no-cors requests configure redirect mode follow",
	"CorsIssue::InsecureLocalNetwork":                                          "Ensure that local network requests are compatible with restrictions",
	"CorsIssue::LocalNetworkAccessPermissionDenied":                            "Ensure that local network requests are compatible with restrictions",
	"CookieIssue::ExcludeSameSiteNoneInsecure::ReadCookie":                     "Mark cross-site cookies as Secure to allow them to be sent in cross-site requests",
	"CookieIssue::ExcludeSameSiteNoneInsecure::SetCookie":                      "Mark cross-site cookies as Secure to allow setting them in cross-site contexts",
	"CookieIssue::WarnSameSiteNoneInsecure::ReadCookie":                        "Mark cross-site cookies as Secure to allow them to be sent in cross-site requests",
	"CookieIssue::WarnSameSiteNoneInsecure::SetCookie":                         "Mark cross-site cookies as Secure to allow setting them in cross-site contexts",
	"CookieIssue::WarnSameSiteUnspecifiedLaxAllowUnsafe::ReadCookie":           "Indicate whether to send a cookie in a cross-site request by specifying its SameSite attribute",
	"CookieIssue::WarnSameSiteUnspecifiedLaxAllowUnsafe::SetCookie":            "Indicate whether a cookie is intended to be set in cross-site context by specifying its SameSite attribute",
	"CookieIssue::WarnSameSiteUnspecifiedCrossSiteContext::ReadCookie":         "Indicate whether to send a cookie in a cross-site request by specifying its SameSite attribute",
	"CookieIssue::WarnSameSiteUnspecifiedCrossSiteContext::SetCookie":          "Indicate whether a cookie is intended to be set in cross-site context by specifying its SameSite attribute",
	"CookieIssue::WarnAttributeValueExceedsMaxSize::ReadCookie":                "Ensure cookie attribute values don’t exceed 1024 characters",
	"CookieIssue::WarnAttributeValueExceedsMaxSize::SetCookie":                 "Ensure cookie attribute values don’t exceed 1024 characters",
	"CookieIssue::WarnDomainNonASCII::ReadCookie":                              "Ensure cookie `Domain` attribute values only contain ASCII characters",
	"CookieIssue::WarnDomainNonASCII::SetCookie":                               "Ensure cookie `Domain` attribute values only contain ASCII characters",
	"CookieIssue::ExcludeDomainNonASCII::ReadCookie":                           "Ensure cookie `Domain` attribute values only contain ASCII characters",
	"CookieIssue::ExcludeDomainNonASCII::SetCookie":                            "Ensure cookie `Domain` attribute values only contain ASCII characters",
	"CookieIssue::CrossSiteRedirectDowngradeChangesInclusion":                  "Cookie is blocked due to a cross-site redirect chain",
	"CookieIssue::ExcludePortMismatch":                                         "Cookie wasn’t sent due to port mismatch",
	"CookieIssue::ExcludeSchemeMismatch":                                       "Cookie wasn’t sent due to scheme mismatch",
	"StylesheetLoadingIssue::LateImportRule":                                   "Define @import rules at the top of the stylesheet",
	"StylesheetLoadingIssue::RequestFailed":                                    "Verify stylesheet URLs",
	"GenericIssue::FormLabelForNameError":                                      "Incorrect use of <label for=FORM_ELEMENT>",
	"GenericIssue::FormInputWithNoLabelError":                                  "Form field without valid aria-labelledby attribute or associated label",
	"GenericIssue::FormAutocompleteAttributeEmptyError":                        "Incorrect use of autocomplete attribute",
	"GenericIssue::FormDuplicateIdForInputError":                               "Duplicate form field id in the same form",
	"GenericIssue::FormAriaLabelledByToNonExistingIdError":                     "An aria-labelledby attribute doesn’t match any element id",
	"GenericIssue::FormEmptyIdAndNameAttributesForInputError":                  "A form field element should have an id or name attribute",
	"GenericIssue::FormInputAssignedAutocompleteValueToIdOrNameAttributeError": "An element doesn’t have an autocomplete attribute",
	"GenericIssue::FormInputHasWrongButWellIntendedAutocompleteValueError":     "Non-standard `autocomplete` attribute value",
	"GenericIssue::FormLabelForMatchesNonExistingIdError":                      "Incorrect use of <label for=FORM_ELEMENT>",
	"GenericIssue::FormLabelHasNeitherForNorNestedInputError":                  "No label associated with a form field",
	"GenericIssue::ResponseWasBlockedByORB":                                    "Response was blocked by CORB (Cross-Origin Read Blocking)",
	"GenericIssue::NavigationEntryMarkedSkippable":                             "Session History Item Has Been Marked Skippable",
	"GenericIssue::BackUINavigationWouldSkipAd":                                "Back UI Navigation Will Skip Ad",
	"GenericIssue::GeolocationPromptWithoutUserGesture":                        "Geolocation permission prompts should not be shown without a user gesture",
}
