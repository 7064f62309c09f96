// Types for the parser the metrics tests read scrapes with (the package ships none).
declare module "parse-prometheus-text-format" {
  interface ParsedSample {
    labels?: Record<string, string>;
    value?: string;
    sum?: string;
    count?: string;
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
  }
  interface ParsedFamily {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "SUMMARY" | "HISTOGRAM" | "UNTYPED";
    metrics: ParsedSample[];
  }
  /** Throws on text the exposition format does not allow. */
  function parsePrometheusTextFormat(text: string): ParsedFamily[];
  export = parsePrometheusTextFormat;
}
