// requestUrl (obsidian-api: network requests outside the browser's CORS rules), over Node's fetch.
export interface RequestUrlParam {
  url: string;
  method?: string;
  contentType?: string;
  body?: string;
  headers?: Record<string, string>;
  throw?: boolean;
}

export interface RequestUrlResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export async function requestUrl(request: RequestUrlParam | string): Promise<RequestUrlResponse> {
  const param = typeof request === "string" ? { url: request } : request;
  const headers = { ...(param.headers ?? {}) };
  if (param.contentType) headers["Content-Type"] = param.contentType;
  const response = await fetch(param.url, { method: param.method ?? "GET", headers, ...(param.body !== undefined ? { body: param.body } : {}) });
  const text = await response.text();
  if (param.throw !== false && response.status >= 400) throw new Error(`Request failed, status ${response.status}`);
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, key) => (responseHeaders[key] = value));
  return { status: response.status, headers: responseHeaders, text };
}
