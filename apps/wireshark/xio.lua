-- SPDX-License-Identifier: BSD-3-Clause
-- xio.lua: Wireshark/tshark dissector for XIO v1 (docs/framing.md, the wire
-- format, and docs/server.md / ../shared/xio-read-v1.md, the read protocol):
-- the 32-byte header, its flags, request / STAT_REPLY / ERROR_REPLY bodies
-- (with the address cookie of version 1.2: option COOKIE and the cookie of a
-- READ_REQUEST, the cookie of a 32-byte STAT_REPLY body, error 7 cookie),
-- token payloads (INT32 or narrowed UINT16) and DATA_REPLY bytes. Checks in
-- Lua what a reader wants flagged: the payload CRC32C, token_count against
-- the payload length, reserved flag bits, hdr_len, short bodies, and the
-- request faults a server answers with bad_request.
--
--   tshark -X lua_script:apps/wireshark/xio.lua -r capture.pcap
--   tshark -X lua_script:xio.lua -o xio.udp_port:9999 ...   (another port)
--
-- Installed by `make install` into the Wireshark plugin folder, where
-- Wireshark loads it by itself (docs/install.md).

local xio = Proto("xio", "XIO token transport")

local XIO_PORT_DEFAULT = 7910
local HDR_LEN = 32
local TOKENS_SHOWN = 8

local OP = {
	READ_REQUEST = 0x01, READ_REPLY = 0x02, ERROR_REPLY = 0x03,
	STAT_REQUEST = 0x04, STAT_REPLY = 0x05, DATA_REPLY = 0x06,
}
local op_names = {}
for name, v in pairs(OP) do op_names[v] = name end
local dtype_names = { [0x01] = "INT32", [0x02] = "UINT16" }
local dtype_vals = { [0x00] = "none", [0x01] = "INT32", [0x02] = "UINT16" }
local dtype_width = { [0x01] = 4, [0x02] = 2 }
local err_names = {
	[1] = "not_found", [2] = "access", [3] = "range",
	[4] = "bad_request", [5] = "not_tokens", [6] = "io", [7] = "cookie",
}
local crc_status_names = { [0] = "Bad", [1] = "Good", [2] = "Unverified", [3] = "Not present" }
local CRC_BAD, CRC_GOOD, CRC_UNVERIFIED, CRC_NOT_PRESENT = 0, 1, 2, 3

local F_LAST, F_HAS_CRC, F_NARROWED, F_RESERVED = 0x01, 0x02, 0x04, 0xF8
local OPT_RAW, OPT_CRC, OPT_COOKIE, OPT_RESERVED = 0x01, 0x02, 0x04, 0xF8
local COOKIE_LEN = 16
local PATH_MAX, READ_MAX_COUNT = 1024, 16777216

local f = xio.fields
f.magic          = ProtoField.uint16("xio.magic", "Magic", base.HEX)
f.version        = ProtoField.uint8("xio.version", "Version", base.DEC)
f.opcode         = ProtoField.uint8("xio.opcode", "Opcode", base.HEX, op_names)
f.flags          = ProtoField.uint8("xio.flags", "Flags", base.HEX)
f.flags_last     = ProtoField.bool("xio.flags.last", "LAST", 8, nil, F_LAST)
f.flags_has_crc  = ProtoField.bool("xio.flags.has_crc", "HAS_CRC", 8, nil, F_HAS_CRC)
f.flags_narrowed = ProtoField.bool("xio.flags.narrowed", "NARROWED", 8, nil, F_NARROWED)
f.flags_reserved = ProtoField.uint8("xio.flags.reserved", "Reserved", base.HEX, nil, F_RESERVED)
f.dtype          = ProtoField.uint8("xio.dtype", "Dtype", base.HEX, dtype_vals)
f.hdr_len        = ProtoField.uint16("xio.hdr_len", "Header length", base.DEC)
f.stream_id      = ProtoField.uint32("xio.stream_id", "Stream ID", base.DEC)
f.seq            = ProtoField.uint32("xio.seq", "Sequence", base.DEC)
f.first_token    = ProtoField.uint64("xio.first_token", "First token", base.DEC)
f.token_count    = ProtoField.uint32("xio.token_count", "Token count", base.DEC)
f.payload_crc    = ProtoField.uint32("xio.payload_crc", "Payload CRC32C", base.HEX)
f.crc_status     = ProtoField.uint8("xio.payload_crc.status", "Payload CRC32C status",
				    base.DEC, crc_status_names)
f.crc_calc       = ProtoField.uint32("xio.payload_crc.calculated", "Payload CRC32C calculated",
				    base.HEX)
f.extension      = ProtoField.bytes("xio.extension", "Header extension")
-- READ_REQUEST / STAT_REQUEST body
f.path_len       = ProtoField.uint16("xio.path_len", "Path length", base.DEC)
f.max_count      = ProtoField.uint16("xio.max_count", "Max count", base.DEC)
f.options        = ProtoField.uint8("xio.options", "Options", base.HEX)
f.options_raw    = ProtoField.bool("xio.options.raw", "RAW", 8, nil, OPT_RAW)
f.options_crc    = ProtoField.bool("xio.options.crc", "CRC", 8, nil, OPT_CRC)
f.options_cookie = ProtoField.bool("xio.options.cookie", "COOKIE", 8, nil, OPT_COOKIE)
f.options_reserved = ProtoField.uint8("xio.options.reserved", "Reserved", base.HEX, nil,
				      OPT_RESERVED)
f.reserved       = ProtoField.uint24("xio.reserved", "Reserved", base.HEX)
f.path           = ProtoField.string("xio.path", "Path")
f.request_fault  = ProtoField.string("xio.request_fault", "Why a server answers bad_request")
-- the address cookie (READ_REQUEST with COOKIE, STAT_REPLY bytes 16..31)
f.cookie         = ProtoField.bytes("xio.cookie", "Address cookie")
-- STAT_REPLY body
f.size           = ProtoField.uint64("xio.size", "Size (bytes)", base.DEC)
f.mtime          = ProtoField.uint64("xio.mtime", "Modification time (ns since the epoch)", base.DEC)
-- ERROR_REPLY body
f.error_code     = ProtoField.uint32("xio.error_code", "Error code", base.DEC, err_names)
f.error_msg_len  = ProtoField.uint32("xio.error_message_len", "Message length", base.DEC)
f.error_message  = ProtoField.string("xio.error_message", "Message")
-- Payloads
f.tokens         = ProtoField.uint32("xio.tokens", "Tokens in the payload", base.DEC)
f.token          = ProtoField.int32("xio.token", "Token", base.DEC)
f.data           = ProtoField.bytes("xio.data", "Data")
f.body           = ProtoField.bytes("xio.body", "Body")

local e = {
	bad_crc = ProtoExpert.new("xio.expert.bad_crc", "Payload CRC32C does not match the payload",
				  expert.group.CHECKSUM, expert.severity.ERROR),
	bad_count = ProtoExpert.new("xio.expert.bad_count",
				    "token_count disagrees with the payload length",
				    expert.group.MALFORMED, expert.severity.ERROR),
	reserved_flags = ProtoExpert.new("xio.expert.reserved_flags", "Reserved flag bits set",
					 expert.group.PROTOCOL, expert.severity.WARN),
	bad_hdr_len = ProtoExpert.new("xio.expert.bad_hdr_len",
				      "hdr_len below 32, not a multiple of 4, or past the datagram",
				      expert.group.MALFORMED, expert.severity.ERROR),
	bad_dtype = ProtoExpert.new("xio.expert.bad_dtype", "dtype and NARROWED disagree",
				    expert.group.PROTOCOL, expert.severity.WARN),
	short_body = ProtoExpert.new("xio.expert.short_body", "Body too short",
				     expert.group.MALFORMED, expert.severity.ERROR),
	bad_request = ProtoExpert.new("xio.expert.bad_request",
				      "A server answers this request with bad_request",
				      expert.group.PROTOCOL, expert.severity.WARN),
	cut = ProtoExpert.new("xio.expert.cut", "Datagram cut short by the capture",
			      expert.group.UNDECODED, expert.severity.NOTE),
}
xio.experts = { e.bad_crc, e.bad_count, e.reserved_flags, e.bad_hdr_len, e.bad_dtype,
		e.short_body, e.bad_request, e.cut }

xio.prefs.udp_port = Pref.uint("UDP port", XIO_PORT_DEFAULT,
			       "The XIO port: a datagram from or to it is dissected as XIO")

-- CRC32C (Castagnoli, reflected 0x82F63B78, init and final xor 0xFFFFFFFF).
local band, bxor, rshift = bit32.band, bit32.bxor, bit32.rshift
local crc_table = {}
for i = 0, 255 do
	local c = i
	for _ = 1, 8 do
		c = band(c, 1) ~= 0 and bxor(rshift(c, 1), 0x82F63B78) or rshift(c, 1)
	end
	crc_table[i] = c
end

local function crc32c(s)
	local c, byte = 0xFFFFFFFF, string.byte
	for i = 1, #s do
		c = bxor(crc_table[band(bxor(c, byte(s, i)), 0xFF)], rshift(c, 8))
	end
	return bxor(c, 0xFFFFFFFF)
end

-- "F..L" for count items from first (a UInt64), "none" for 0.
local function range_text(first, count)
	if count == 0 then return "none" end
	return tostring(first) .. ".." .. tostring(first + (count - 1))
end

local function hex(v, width)
	return string.format("0x%0" .. width .. "x", v)
end

-- The fixed header; returns the fields as a table.
local function dissect_header(tvb, t)
	local h = {
		opcode = tvb(3, 1):uint(), flags = tvb(4, 1):uint(), dtype = tvb(5, 1):uint(),
		hdr_len = tvb(6, 2):uint(), stream_id = tvb(8, 4):uint(), seq = tvb(12, 4):uint(),
		first = tvb(16, 8):uint64(), count = tvb(24, 4):uint(), crc = tvb(28, 4):uint(),
	}
	t:add(f.magic, tvb(0, 2))
	t:add(f.version, tvb(2, 1))
	t:add(f.opcode, tvb(3, 1))
	local ft = t:add(f.flags, tvb(4, 1))
	ft:add(f.flags_last, tvb(4, 1))
	ft:add(f.flags_has_crc, tvb(4, 1))
	ft:add(f.flags_narrowed, tvb(4, 1))
	local rt = ft:add(f.flags_reserved, tvb(4, 1))
	if band(h.flags, F_RESERVED) ~= 0 then
		rt:add_proto_expert_info(e.reserved_flags, "Reserved flag bits " ..
					 hex(band(h.flags, F_RESERVED), 2) .. " set")
	end
	t:add(f.dtype, tvb(5, 1))
	h.hdr_len_item = t:add(f.hdr_len, tvb(6, 2))
	t:add(f.stream_id, tvb(8, 4))
	t:add(f.seq, tvb(12, 4))
	t:add(f.first_token, tvb(16, 8))
	t:add(f.token_count, tvb(24, 4))
	h.crc_item = t:add(f.payload_crc, tvb(28, 4))
	return h
end

-- The payload's CRC32C against the header's, when HAS_CRC is set.
local function check_crc(tvb, t, h, off, len, cut)
	local status = CRC_NOT_PRESENT
	if band(h.flags, F_HAS_CRC) ~= 0 then
		if cut then
			status = CRC_UNVERIFIED
		else
			local got = len > 0 and crc32c(tvb:raw(off, len)) or 0
			t:add(f.crc_calc, got):set_generated()
			status = got == h.crc and CRC_GOOD or CRC_BAD
			if status == CRC_BAD then
				h.crc_item:add_proto_expert_info(e.bad_crc, "Payload CRC32C " .. hex(h.crc, 8) ..
					" does not match the payload (" .. hex(got, 8) .. ")")
			end
		end
	end
	t:add(f.crc_status, status):set_generated()
end

-- READ_REPLY tokens or DATA_REPLY bytes; returns the Info text.
local function dissect_payload(tvb, t, h, off, len, cap)
	local name, width, unit
	if h.opcode == OP.DATA_REPLY then
		name, width, unit = "DATA_REPLY", 1, "bytes"
	else
		name, width, unit = "READ_REPLY", dtype_width[h.dtype], "tokens"
	end
	local info = string.format("%s stream=%u seq=%u %s %s", name, h.stream_id, h.seq, unit,
				   range_text(h.first, h.count))
	if h.opcode == OP.READ_REPLY then
		local narrowed = band(h.flags, F_NARROWED) ~= 0
		info = info .. " " .. (dtype_names[h.dtype] or ("dtype=" .. hex(h.dtype, 2)))
		if not width then
			t:add_proto_expert_info(e.bad_dtype, "dtype " .. hex(h.dtype, 2) ..
						" is neither INT32 nor UINT16")
		elseif narrowed ~= (h.dtype == 0x02) then
			t:add_proto_expert_info(e.bad_dtype, narrowed and "NARROWED with dtype INT32" or
						"dtype UINT16 without NARROWED")
		end
	end
	if not width then
		if cap > 0 then t:add(f.body, tvb(off, cap)) end
		return info
	end
	if h.count * width ~= len then
		t:add_proto_expert_info(e.bad_count, string.format(
			"token_count %u x %u bytes = %.0f, but the payload has %u bytes",
			h.count, width, h.count * width, len))
	end
	if h.opcode == OP.DATA_REPLY then
		if cap > 0 then t:add(f.data, tvb(off, cap)) end
		return info
	end
	local n = math.floor(len / width)
	local shown = math.min(TOKENS_SHOWN, math.floor(cap / width))
	local tt = t:add(f.tokens, tvb(off, math.min(cap, n * width)), n)
	tt:append_text(" " .. dtype_names[h.dtype])
	for i = 0, shown - 1 do
		local r = tvb(off + i * width, width)
		local v = width == 4 and r:le_int() or r:le_uint()
		tt:add_le(f.token, r, v, string.format("Token %s: %d", tostring(h.first + i), v))
	end
	if n > shown then
		tt:add(string.format("%u more tokens", n - shown)):set_generated()
	end
	return info
end

-- Where a READ_REQUEST's cookie starts in its body: after the path's padding.
local function cookie_at(path_len)
	return math.floor((8 + path_len + 3) / 4) * 4
end

-- The request checks of the read protocol, in xio_request_parse()'s order.
local function request_fault(h, blen, path_len, options)
	if h.flags ~= 0 then return "header flags must be 0" end
	if h.dtype ~= 0 then return "header dtype must be 0" end
	if blen < 8 then return "request body too short" end
	if path_len < 1 or path_len > PATH_MAX then return "path_len out of range 1..1024" end
	if blen < 8 + path_len then return "request body too short for its path" end
	if band(options, OPT_RESERVED) ~= 0 then return "unknown option bits" end
	if h.opcode == OP.READ_REQUEST and (h.count == 0 or h.count > READ_MAX_COUNT) then
		return "token_count must be 1..16777216"
	end
	if h.opcode == OP.READ_REQUEST and band(options, OPT_COOKIE) ~= 0 and
	   blen < cookie_at(path_len) + COOKIE_LEN then
		return "request body too short for its cookie"
	end
	return nil
end

local function dissect_request(tvb, t, h, off, len, cap)
	local path_len, options, path = 0, 0, nil
	if cap >= 8 then
		path_len, options = tvb(off, 2):uint(), tvb(off + 4, 1):uint()
		t:add(f.path_len, tvb(off, 2))
		t:add(f.max_count, tvb(off + 2, 2))
		local ot = t:add(f.options, tvb(off + 4, 1))
		ot:add(f.options_raw, tvb(off + 4, 1))
		ot:add(f.options_crc, tvb(off + 4, 1))
		ot:add(f.options_cookie, tvb(off + 4, 1))
		ot:add(f.options_reserved, tvb(off + 4, 1))
		t:add(f.reserved, tvb(off + 5, 3))
		local plen = math.min(path_len, cap - 8)
		if plen > 0 then
			path = tvb(off + 8, plen):raw()
			t:add(f.path, tvb(off + 8, plen))
		end
	end
	local cookie = h.opcode == OP.READ_REQUEST and band(options, OPT_COOKIE) ~= 0
	if cookie and cap >= cookie_at(path_len) + COOKIE_LEN then
		t:add(f.cookie, tvb(off + cookie_at(path_len), COOKIE_LEN))
	end
	local why = (len < 8 or cap >= 8) and request_fault(h, len, path_len, options)
	if why then
		t:add(f.request_fault, why):set_generated()
		t:add_proto_expert_info(e.bad_request, "Answered with bad_request: " .. why)
	end
	local info = string.format("%s stream=%u", op_names[h.opcode], h.stream_id)
	if h.opcode == OP.READ_REQUEST then
		info = info .. string.format(" %s %s", band(options, OPT_RAW) ~= 0 and "bytes" or "tokens",
					     range_text(h.first, h.count))
	end
	if path then info = info .. " path=" .. path end
	if band(options, OPT_CRC) ~= 0 then info = info .. " CRC" end
	if cookie then info = info .. " COOKIE" end
	return info
end

-- True when the body's first need bytes are in the datagram (else the
-- short_body expert) and in the capture.
local function body_has(t, len, cap, need, what)
	if len < need then
		t:add_proto_expert_info(e.short_body, string.format("%s: %d bytes, %d needed", what, len,
								    need))
		return false
	end
	return cap >= need
end

local function dissect_stat_reply(tvb, t, h, off, len, cap)
	local info = string.format("STAT_REPLY stream=%u", h.stream_id)
	if not body_has(t, len, cap, 16, "STAT_REPLY body") then return info end
	local size, mtime = tvb(off, 8):uint64(), tvb(off + 8, 8):uint64()
	t:add(f.size, tvb(off, 8))
	local secs = (mtime / 1000000000):tonumber()
	t:add(f.mtime, tvb(off + 8, 8)):append_text(string.format(" (%s.%09u UTC)",
		os.date("!%Y-%m-%d %H:%M:%S", secs), (mtime % 1000000000):tonumber()))
	info = info .. " size=" .. tostring(size)
	if len >= 16 + COOKIE_LEN and cap >= 16 + COOKIE_LEN then
		t:add(f.cookie, tvb(off + 16, COOKIE_LEN))
		info = info .. " cookie"
	end
	return info
end

local function dissect_error_reply(tvb, t, h, off, len, cap)
	local info = string.format("ERROR_REPLY stream=%u", h.stream_id)
	if not body_has(t, len, cap, 8, "ERROR_REPLY body") then return info end
	local code, mlen = tvb(off, 4):uint(), tvb(off + 4, 4):uint()
	t:add(f.error_code, tvb(off, 4))
	t:add(f.error_msg_len, tvb(off + 4, 4))
	info = info .. " error=" .. (err_names[code] or "unknown") .. "(" .. code .. ")"
	if not body_has(t, len, cap, 8 + mlen, "ERROR_REPLY message") then return info end
	if mlen > 0 then
		t:add(f.error_message, tvb(off + 8, mlen))
	end
	return info .. ' "' .. tvb(off + 8, mlen):raw() .. '"'
end

local function dissect_unknown(tvb, t, h, off, len, cap)
	if cap > 0 then t:add(f.body, tvb(off, cap)) end
	return string.format("opcode=%s stream=%u seq=%u", hex(h.opcode, 2), h.stream_id, h.seq)
end

local body_dissectors = {
	[OP.READ_REQUEST] = dissect_request, [OP.STAT_REQUEST] = dissect_request,
	[OP.READ_REPLY] = dissect_payload, [OP.DATA_REPLY] = dissect_payload,
	[OP.STAT_REPLY] = dissect_stat_reply, [OP.ERROR_REPLY] = dissect_error_reply,
}

function xio.dissector(tvb, pinfo, tree)
	local len, cap = tvb:reported_length_remaining(), tvb:len()
	if len < HDR_LEN or cap < 3 or tvb(0, 2):uint() ~= 0x5849 or tvb(2, 1):uint() ~= 1 then
		return 0
	end
	pinfo.cols.protocol = "XIO"
	local t = tree:add(xio, tvb())
	if cap < HDR_LEN then
		t:add(f.magic, tvb(0, 2))
		t:add(f.version, tvb(2, 1))
		t:add_proto_expert_info(e.cut, "XIO header cut short by the capture")
		pinfo.cols.info = "XIO header cut short by the capture"
		return cap
	end
	local h = dissect_header(tvb, t)
	local hl = h.hdr_len
	local info
	if hl < HDR_LEN or hl % 4 ~= 0 or hl > len then
		h.hdr_len_item:add_proto_expert_info(e.bad_hdr_len)
		info = string.format("%s stream=%u seq=%u bad hdr_len %u",
				     op_names[h.opcode] or ("opcode=" .. hex(h.opcode, 2)),
				     h.stream_id, h.seq, hl)
	else
		if hl > HDR_LEN and cap > HDR_LEN then
			t:add(f.extension, tvb(HDR_LEN, math.min(hl, cap) - HDR_LEN))
		end
		local blen, bcap = len - hl, math.max(cap - hl, 0)
		local dissect_body = body_dissectors[h.opcode] or dissect_unknown
		info = dissect_body(tvb, t, h, hl, blen, bcap)
		check_crc(tvb, t, h, hl, blen, bcap < blen)
		if bcap < blen then
			t:add_proto_expert_info(e.cut)
		end
	end
	t:append_text(", " .. info)
	pinfo.cols.info = info
	return cap
end

local registered_port
local function register_port()
	local udp = DissectorTable.get("udp.port")
	if registered_port then udp:remove(registered_port, xio) end
	registered_port = xio.prefs.udp_port
	if registered_port ~= 0 then udp:add(registered_port, xio) end
end

function xio.prefs_changed()
	if xio.prefs.udp_port ~= registered_port then register_port() end
end

register_port()
