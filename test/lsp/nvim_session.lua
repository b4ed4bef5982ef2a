-- A user's editor session with meshguard-clangd, in Neovim's own LSP client
-- (no plugins), run headless: `nvim --headless --clean -c 'luafile this'`.
--
-- It opens MG_FILE, waits for the diagnostics, and writes to MG_REPORT what
-- the user sees: each diagnostic's message as Neovim shows it, and the quick
-- fixes `vim.lsp.buf.code_action()` offers with the cursor on it. Then it
-- applies quick fixes one by one as a user would (the first diagnostic that
-- has one; Neovim applies the edit and sends the change), waits for the
-- re-diagnosis of each edit (its time is reported), and writes the buffer to
-- MG_FIXED. Environment: MG_CLANGD (the server command), MG_FILE, MG_REPORT,
-- MG_FIXED, MG_TIMEOUT (seconds per wait, default 120).
--
-- Neovim 0.7 (Debian 12's) API: vim.lsp.start_client, vim.diagnostic.get,
-- vim.lsp.buf.code_action with vim.ui.select for the choice.

local clangd = assert(os.getenv('MG_CLANGD'), 'MG_CLANGD not set')
local file = assert(os.getenv('MG_FILE'), 'MG_FILE not set')
local report_path = assert(os.getenv('MG_REPORT'), 'MG_REPORT not set')
local fixed_path = assert(os.getenv('MG_FIXED'), 'MG_FIXED not set')
local timeout_ms = tonumber(os.getenv('MG_TIMEOUT') or '120') * 1000

local report = assert(io.open(report_path, 'w'))
local function say(line)
  report:write(line, '\n')
  report:flush()
end
local function fail(why)
  say('error: ' .. why)
  report:close()
  vim.cmd('qa!')
end

vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()

-- The publishDiagnostics of the buffer's current version, counted, after
-- Neovim's own handler. (clangd first clears the file's diagnostics, with no
-- version: that is not the analysis.)
local published = 0
local published_at = 0
local on_publish = vim.lsp.handlers['textDocument/publishDiagnostics']
local handlers = {
  ['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
    on_publish(err, result, ctx, config)
    if result and result.version ~= nil and result.version == vim.lsp.util.buf_versions[buf] then
      published = published + 1
      published_at = vim.loop.hrtime()
    end
  end,
}

local client = vim.lsp.start_client({
  name = 'meshguard-clangd',
  cmd = vim.split(clangd, ' ', { trimempty = true }),
  root_dir = vim.fn.fnamemodify(file, ':p:h'),
  handlers = handlers,
})
if not client then
  fail('meshguard-clangd did not start: ' .. clangd)
  return
end
vim.lsp.buf_attach_client(buf, client)

local function wait_for_publish(after)
  return vim.wait(timeout_ms, function()
    return published > after
  end, 20)
end

local function sorted_diagnostics()
  local ds = vim.diagnostic.get(buf)
  table.sort(ds, function(a, b)
    if a.lnum ~= b.lnum then
      return a.lnum < b.lnum
    end
    return a.col < b.col
  end)
  return ds
end

-- The quick fixes offered with the cursor on \p d, as the user gets them
-- (vim.ui.select's items); \p choose picks one by title, or none.
local function code_actions(d, choose)
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  local offered = nil
  local original_select, original_notify = vim.ui.select, vim.notify
  vim.ui.select = function(items, opts, on_choice)
    offered = {}
    local pick = nil
    for i, item in ipairs(items) do
      local action = item[2] or item
      offered[#offered + 1] = { title = action.title, kind = action.kind }
      if choose and not pick and choose(action) then
        pick = i
      end
    end
    on_choice(pick and items[pick] or nil, pick)
  end
  vim.notify = function(msg)
    if offered == nil and tostring(msg):match('No code actions') then
      offered = {}
    end
  end
  vim.lsp.buf.code_action()
  vim.wait(timeout_ms, function()
    return offered ~= nil
  end, 20)
  vim.ui.select, vim.notify = original_select, original_notify
  return offered or {}
end

local function is_suppression(action)
  return action.title:match('NOLINT') ~= nil
end

local function check_name(d)
  local lsp = d.user_data and d.user_data.lsp or {}
  return d.code or lsp.code or '?'
end

if not wait_for_publish(0) then
  fail('no diagnostics within the timeout')
  return
end

say('diagnostics:')
local initial = sorted_diagnostics()
for _, d in ipairs(initial) do
  say(string.format('%d:%d: %s [%s]', d.lnum + 1, d.col + 1, d.message, check_name(d)))
  for _, action in ipairs(code_actions(d, nil)) do
    if not is_suppression(action) then
      say(string.format('  quick fix: %s (%s)', action.title, action.kind or '-'))
    end
  end
end
say(string.format('total: %d', #initial))

-- Apply quick fixes as a user would, one edit at a time.
local applied = 0
for _ = 1, 50 do
  local target = nil
  for _, d in ipairs(sorted_diagnostics()) do
    for _, action in ipairs(code_actions(d, nil)) do
      if action.kind == 'quickfix' and not is_suppression(action) then
        target = d
        break
      end
    end
    if target then
      break
    end
  end
  if not target then
    break
  end
  local before = published
  local start = vim.loop.hrtime()
  local chosen = nil
  code_actions(target, function(action)
    if action.kind == 'quickfix' and not is_suppression(action) then
      chosen = action.title
      return true
    end
    return false
  end)
  if not wait_for_publish(before) then
    fail('no re-diagnosis after applying: ' .. tostring(chosen))
    return
  end
  applied = applied + 1
  say(string.format('applied: %s (re-diagnosed in %.2f s)', chosen,
    (published_at - start) / 1e9))
end

say(string.format('applied %d quick fixes', applied))
say('left:')
for _, d in ipairs(sorted_diagnostics()) do
  say(string.format('%d:%d: %s [%s]', d.lnum + 1, d.col + 1, d.message, check_name(d)))
end
vim.cmd('write! ' .. vim.fn.fnameescape(fixed_path))
say('done')
report:close()
vim.lsp.stop_client(client)
vim.wait(2000, function()
  return vim.lsp.get_client_by_id(client) == nil
end, 50)
vim.cmd('qa!')
