"""Mistral (``workflowv2``) drivers, one module per resource type: :mod:`.workflow`, :mod:`.cron_trigger` and
:mod:`.external_resource`; :mod:`.api` holds the REST calls they share and :mod:`.definition` the workflow
definition Heat builds from a Workflow's properties. The test cloud runs Mistral's API, engine and executor
(``tests/cloud/86-mistral.sh``), so executions really run there."""
