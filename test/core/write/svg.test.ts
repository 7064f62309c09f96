import { test } from "node:test";
import assert from "node:assert/strict";
import { svgScriptProblem } from "../../../src/core/write/svg";

const wrap = (inner: string): string => `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">${inner}</svg>\n`;

test("plain drawings pass, text that merely mentions scripts included", () => {
  const clean = [
    wrap('<rect x="1" y="1" width="8" height="8" fill="#336699"/><circle cx="5" cy="5" r="2" opacity="0.5"/>'),
    wrap('<a href="https://example.com/page"><text x="1" y="5">Read the &lt;script&gt; docs; onload = later</text></a>'),
    wrap('<!-- <script>alert(1)</script> was removed --><g id="online" class="onboarding"><path d="M0 0L10 10"/></g>'),
    wrap('<style>.a { fill: red; }</style><use xlink:href="#shape"/><image href="diagram.png"/>'),
    wrap("<text><![CDATA[ if (a < b) onload=1 ]]></text>"),
    wrap('<animate attributeName="opacity" values="0;1" dur="1s"/><set attributeName="fill" to="blue"/>'),
    '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n' + wrap("<rect/>"),
  ];
  for (const svg of clean) assert.equal(svgScriptProblem(svg), null, svg);
});

test("scripts, handlers, javascript: URLs and foreignObject are found however they are spelled", () => {
  const cases: Array<[string, RegExp]> = [
    [wrap("<script>alert(1)</script>"), /<script> element/],
    [wrap('<ScRiPt type="text/javascript">alert(1)</ScRiPt>'), /<ScRiPt> element/],
    [wrap("<svg:script>alert(1)</svg:script>"), /<svg:script> element/],
    [wrap("< script>alert(1)</script>"), /<script> element/],
    [wrap('<script\nxlink:href="x.js"/>'), /<script> element/],
    [wrap('<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'), /<foreignObject> element/],
    [wrap('<rect onload="alert(1)"/>'), /event-handler attribute \(onload=…\)/],
    [wrap('<rect ONLOAD = "alert(1)"/>'), /event-handler attribute \(ONLOAD=…\)/],
    [wrap("<rect\tonclick=alert(1)/>"), /event-handler attribute \(onclick=…\)/],
    [wrap('<rect x="1"\n   onmouseover\n=\n"alert(1)"/>'), /event-handler attribute/],
    [wrap('<rect ev:onfocusin="alert(1)"/>'), /event-handler attribute/],
    [wrap('<rect/onload="alert(1)"/>'), /event-handler attribute/],
    [wrap('<a xlink:href="  javascript:alert(1)"><text>x</text></a>'), /javascript: URL \(in xlink:href\)/],
    [wrap('<a href="JaVaScRiPt:alert(1)">x</a>'), /javascript: URL/],
    [wrap('<a href="java\tscript:alert(1)">x</a>'), /javascript: URL/],
    [wrap('<a href="&#106;avascript&#58;alert(1)">x</a>'), /javascript: URL/],
    [wrap('<a href="&#x6A;&#x61;vascript&colon;alert(1)">x</a>'), /javascript: URL/],
    [wrap('<a href="java&#x09;script:alert(1)">x</a>'), /javascript: URL/],
    [wrap("<a href='javascript:alert(1)'>x</a>"), /javascript: URL/],
    [wrap('<animate attributeName="href" values="https://ok;javascript:alert(1)"/>'), /javascript: URL \(in values\)/],
    [wrap('<set attributeName="onmouseover" to="alert(1)"/>'), /animation of an event-handler attribute/],
    [wrap('<a href="vbscript:msgbox(1)">x</a>'), /vbscript: URL/],
    ['<!DOCTYPE svg [<!ENTITY s "&#60;script&#62;alert(1)&#60;/script&#62;">]>' + wrap("&s;"), /entity declaration/],
    ['<?xml-stylesheet type="text/xsl" href="evil.xsl"?>' + wrap("<rect/>"), /xml-stylesheet/],
  ];
  for (const [svg, expected] of cases) assert.match(svgScriptProblem(svg) ?? "(nothing found)", expected, svg);
});

test("the scan is one pass: a large drawing or unterminated markup does not make it slow or throw", () => {
  const big = wrap('<rect x="1" y="1" width="8" height="8"/>'.repeat(200_000));
  assert.equal(svgScriptProblem(big), null);
  assert.equal(svgScriptProblem(`<svg><rect x="${"a".repeat(100_000)}`), null);
  assert.equal(svgScriptProblem("<".repeat(100_000)), null);
  assert.equal(svgScriptProblem("<!--".repeat(10_000)), null);
  assert.match(svgScriptProblem(`${"<rect/>".repeat(100_000)}<script>`) ?? "", /script/);
});
