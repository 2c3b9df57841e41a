-- wrk script: one chat investigation turn per request ("Investigue contratos do Ministério da Saúde em 2024"); counts the streams that ended in `complete` (see BENCHMARKS.md, "Chat").
wrk.method = "POST"
wrk.body = '{"message":"Investigue contratos do Ministério da Saúde em 2024"}'
wrk.headers["Content-Type"] = "application/json"
local threads = {}
function setup(thread) table.insert(threads, thread) end
complete = 0
other = 0
function response(status, headers, body)
  if string.find(body, "event: complete", 1, true) then complete = complete + 1 else other = other + 1 end
end
function done(summary, latency, requests)
  local c, o = 0, 0
  for _, t in ipairs(threads) do c = c + t:get("complete"); o = o + t:get("other") end
  io.write(string.format("streams ending in complete: %d, other: %d, complete/s: %.0f\n", c, o, c / (summary.duration / 1e6)))
end
