-- The W3C traceparent of the request or job that appended the event (NULL
-- when tracing is off): each delivery attempt's span continues that trace.
ALTER TABLE events ADD COLUMN traceparent text;
